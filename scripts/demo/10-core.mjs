// Tour of the integrity kit: strict JSON, the two canonical forms, digests,
// refusals with fixed codes, and owner-only private files.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'core: strict JSON, canonical bytes, digests, private files';

export async function run(ctx) {
  ctx.say('RFC 8785 canonical form (keys by UTF-16 unit, ES6 numbers, no trailing newline):');
  ctx.sealkit(['json', 'canonicalize'], {
    input: '{ "b": [1e21, 0.10, -0], "a": "\\u00e9", "😀": 1, "€": 2 }',
  });

  ctx.say('Python-compatible form (keys by code point, exact big integers) and its SHA-256:');
  ctx.sealkit(['json', 'canonicalize', '--python'], {
    input: '{"😀": 1, "€": 2, "big": 123456789012345678901234567890}',
  });
  ctx.sealkit(['json', 'digest', '--python'], { input: '{}' });

  ctx.say('Refusals carry a fixed reason code and never echo the input:');
  ctx.sealkit(['json', 'digest', '--json'], { input: '{"customer_ssn": 1, "\\u0063ustomer_ssn": 2}' });
  ctx.sealkit(['json', 'canonicalize'], { input: '\ufeff{"a":1}' });
  ctx.sealkit(['json', 'canonicalize', '--python'], { input: '{"price": 1.5}' });
  ctx.sealkit(['json', 'digest', '--max-bytes', '8'], { input: '{"a":"0123456789"}' });

  ctx.say('Private files: owner-only, single-link, no symlinks, read through one held descriptor:');
  const { readPrivateJson, Refusal } = await ctx.library();
  const dir = join(ctx.workDir, 'private');
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'run-manifest.json');
  writeFileSync(file, '{"status":"completed"}', { mode: 0o600 });
  ctx.say(`readPrivateJson(0600 file in 0700 dir) -> ${JSON.stringify(readPrivateJson(file))}`);
  chmodSync(file, 0o640);
  try {
    readPrivateJson(file);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    ctx.say(`readPrivateJson(0640 file) -> refused ${error.code}: ${error.message}`);
  }
}
