// Data contracts II: the example project published to the embedded,
// append-only ledger (PGlite in .sealkit/ledger); a field type widened and
// classified; the publication refused without an approval, then approved and
// appended; the dashboards the change reaches; a full replay of the ledger.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'contracts ledger: classify, publish with approvals, affected dashboards, replay';

export async function run(ctx) {
  const project = join(ctx.workDir, 'contracts-ledger', 'retail');
  cpSync(join(ctx.root, 'examples', 'contracts', 'retail'), project, { recursive: true });

  ctx.say('Plan first: --dry-run prints the very entries a publication would append, and creates nothing:');
  ctx.sealkit(['contract', 'publish', project, '--dry-run']);

  ctx.say(
    'Publish every versioned resource to the embedded ledger (the first run creates it: a few seconds):',
  );
  ctx.sealkit(['contract', 'publish', project]);
  const before = join(ctx.workDir, 'contracts-ledger', 'before');
  ctx.sealkit(['contract', 'project', project, '--resource', 'retail.source.orders', '--out', before]);

  ctx.say('Widen the order amount from decimal(12,2) to decimal(14,2) and bump the version to 1.4.0:');
  const file = join(project, 'sources', 'orders.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8')
      .replace('type: decimal(12,2)', 'type: decimal(14,2)')
      .replace('version: 1.3.0', 'version: 1.4.0'),
  );
  const after = join(ctx.workDir, 'contracts-ledger', 'after');
  ctx.sealkit(['contract', 'project', project, '--resource', 'retail.source.orders', '--out', after]);
  ctx.say('The classifier compares the two canonical projections: a widening (every old value still fits):');
  const bytes = (dir) => join(dir, 'resources', 'retail.source.orders.json');
  ctx.sealkit(['contract', 'classify', bytes(before), bytes(after)]);

  ctx.say('Publishing it without an approval is refused (exit 2), and nothing is written:');
  ctx.sealkit(['contract', 'publish', project, '--resource', 'retail.source.orders']);

  ctx.say(
    'With an approval of exactly ID@VERSION (who, when, why), it is appended; the approval is bound into the entry hash:',
  );
  ctx.sealkit([
    'contract',
    'publish',
    project,
    '--resource',
    'retail.source.orders',
    '--approve-widening',
    'retail.source.orders@1.4.0',
    '--approver',
    'Ada Steward',
    '--reason',
    'Wholesale orders exceed 10^10.',
    '--approved-at',
    '2026-03-01T09:30:00Z',
  ]);
  ctx.sealkit(['contract', 'history', 'retail.source.orders', '--project', project]);

  ctx.say(
    'The publication stores only the directly published identity; the dashboards it reaches come from the project graph:',
  );
  ctx.sealkit(['contract', 'affected', project, '--resource', 'retail.source.orders']);
  ctx.sealkit(['contract', 'affected', project, '--resource', 'retail.model.customer_dim']);

  ctx.say(
    'Replay re-validates the whole ledger: hash chain, bytes and digests, baselines, recomputed classifications:',
  );
  ctx.sealkit(['contract', 'replay', '--project', project]);
}
