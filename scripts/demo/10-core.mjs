// Canonical JSON: the two canonical forms, their digests, and a refusal that
// says where.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'canonical JSON: same document, same bytes, same SHA-256';

export async function run(ctx) {
  const dir = join(ctx.workDir, 'json');
  mkdirSync(dir);
  writeFileSync(join(dir, 'order.json'), '{ "total": 1e2, "id": "o-1",\n  "lines": [0.10, -0] }\n');
  writeFileSync(join(dir, 'broken.json'), '{"id": "o-1", "total": 100, "id": "o-2"}\n');
  ctx.cd(dir);
  ctx.show(join(dir, 'order.json'));
  ctx.sealkit(['json', 'canonicalize', 'order.json']);
  ctx.sealkit(['json', 'digest', 'order.json']);
  ctx.say('A refusal on your own file names it, with line and column:');
  ctx.show(join(dir, 'broken.json'));
  ctx.sealkit(['json', 'digest', 'broken.json']);
}
