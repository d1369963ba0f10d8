// Tour of migration evidence binding: synthesize owner-only evidence for the
// canonical retail tables, check that it binds, then show refusals with their
// fixed reason codes. Everything is synthetic and written under the demo directory.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'migration evidence: synthetic bundle, binding check, refusals';

function expectExit(result, status) {
  if (result.status !== status) throw new Error(`expected exit ${status}, got ${result.status}`);
}

function bundle(out) {
  const [manifest] = readdirSync(join(out, 'run-manifests'));
  return {
    mapping: join(out, 'mapping.json'),
    dryRun: join(out, 'dry-run.json'),
    manifest: join(out, 'run-manifests', manifest),
  };
}

function checkArgs(files, extra) {
  return [
    'evidence',
    'check',
    '--mapping-file',
    files.mapping,
    '--inventory-file',
    files.dryRun,
    '--run-manifest',
    files.manifest,
    ...extra,
  ];
}

export async function run(ctx) {
  ctx.say(
    'Write SYNTHETIC evidence (a fixture generator, not a loader): mapping, saved dry run, completed run manifest.',
  );
  const fresh = join(ctx.workDir, 'evidence-fresh');
  expectExit(
    ctx.sealkit([
      'evidence',
      'synth',
      '--out',
      fresh,
      '--source',
      'sql',
      '--destination',
      'bigquery',
      '--seed',
      '7',
    ]),
    0,
  );
  const files = bundle(fresh);

  ctx.say(
    'The three artifacts bind: the edition is selected, tables and Bronze names are listed, nothing private is printed.',
  );
  expectExit(
    ctx.sealkit(checkArgs(files, ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', '36h'])),
    0,
  );

  ctx.say('Refused: the invocation names another source binding alias (exit 2, one fixed reason code).');
  expectExit(
    ctx.sealkit(
      checkArgs(files, ['--source-binding-id', 'another_shop', '--max-evidence-age', '36h', '--json']),
    ),
    2,
  );

  ctx.say('Refused: a run that finished in January 2024 is older than the 36 hours allowed.');
  const stale = join(ctx.workDir, 'evidence-stale');
  expectExit(
    ctx.sealkit([
      'evidence',
      'synth',
      '--out',
      stale,
      '--source',
      'csv',
      '--destination',
      'snowflake',
      '--tables',
      'orders,customers',
      '--finished-at',
      '2024-01-31T12:00:00Z',
    ]),
    0,
  );
  expectExit(
    ctx.sealkit(
      checkArgs(bundle(stale), ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', '36h']),
    ),
    2,
  );

  ctx.say('Refused: freshness has no default, so a check without --max-evidence-age stops.');
  expectExit(ctx.sealkit(checkArgs(files, ['--source-binding-id', 'synthetic_retail', '--json'])), 2);

  ctx.say('The library returns the typed subset a Silver generator may use:');
  const { bindEvidence } = await ctx.library();
  const outcome = bindEvidence({
    mappingFile: files.mapping,
    dryRunFile: files.dryRun,
    runManifestFile: files.manifest,
    sourceBindingId: 'synthetic_retail',
    maxAge: 36 * 3600,
  });
  if (outcome.status !== 'bound') throw new Error('the synthetic evidence did not bind');
  const orders = outcome.tables.find((table) => table.table === 'orders');
  ctx.say(`bindEvidence(...).status = ${outcome.status}, edition = ${outcome.edition}`);
  ctx.say(
    `orders rules: ${orders.rules.map((rule) => `${JSON.stringify(rule.source)} -> ${rule.target} (${rule.cast})`).join(', ')}`,
  );
}
