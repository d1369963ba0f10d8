// Version and publish data contracts: the example retail project (sources,
// models, semantic models, dashboards) validated, projected to canonical bytes
// with a SHA-256 identity, published to the embedded append-only ledger; a
// field widened, classified (and failed with --fail-on, as CI would), refused
// without an approval, a forged plan refused, then approved and appended; the
// dashboards it reaches; a typo refused with where.
import { cpSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'version and publish data contracts';

export async function run(ctx) {
  // The tour uses the embedded ledger even where a server is configured for this shell.
  delete process.env.SEALKIT_LEDGER_URL;
  delete process.env.DATABASE_URL;
  const base = join(ctx.workDir, 'contracts');
  cpSync(join(ctx.root, 'examples', 'contracts', 'retail'), join(base, 'retail'), { recursive: true });
  ctx.cd(base);
  ctx.sealkit(['contract', 'validate', 'retail'], { tail: 1 });
  ctx.say('Publish every versioned resource to the ledger (embedded PostgreSQL in retail/.sealkit/ledger):');
  ctx.sealkit(['contract', 'publish', 'retail'], { tail: 1 });
  ctx.sealkit(['contract', 'project', 'retail', '--resource', 'retail.source.orders', '--out', 'before'], {
    lines: 1,
  });

  ctx.say('Widen the order amount and bump the version; the classifier compares the canonical projections:');
  ctx.shell(
    "sed -i 's/type: decimal(12,2)/type: decimal(14,2)/; s/version: 1.3.0/version: 1.4.0/' retail/sources/orders.yaml",
  );
  ctx.sealkit(['contract', 'project', 'retail', '--resource', 'retail.source.orders', '--out', 'after'], {
    lines: 1,
  });
  ctx.say('With --fail-on a CI job fails (exit 2) when the verdict is that level or worse:');
  ctx.sealkit(
    [
      'contract',
      'classify',
      'before/resources/retail.source.orders.json',
      'after/resources/retail.source.orders.json',
      '--fail-on',
      'widening',
    ],
    { lines: 3, errors: 1 },
  );
  ctx.say('A widening needs an approval of exactly ID@VERSION; without one nothing is written:');
  ctx.sealkit(['contract', 'publish', 'retail', '--resource', 'retail.source.orders'], {
    lines: 3,
    errors: 3,
  });
  ctx.say('A plan is data, not authority: one whose approval was dropped and verdict rewritten is refused:');
  const lib = await ctx.library();
  const orders = (await lib.openContractProject(join(base, 'retail'))).project('retail.source.orders');
  const ledger = await lib.openLedger(lib.ledgerLocation(undefined, join(base, 'retail')), { create: false });
  const approval = {
    approves: 'retail.source.orders@1.4.0',
    approver: 'A',
    approvedAt: '2026-03-01T09:30:00Z',
    reason: 'R',
  };
  await ledger
    .transaction(async (session) => {
      const state = await lib.readLedgerState(session, ['retail.source.orders']);
      const plan = lib.planLatestPublication(state, [{ id: 'retail.source.orders', ...orders }], approval);
      const [item] = plan.items;
      const forged = { ...item, entry: { ...item.entry, verdict: 'compatible', approval: null } };
      await lib.applyPublicationPlan(session, { ...plan, items: [forged] });
    })
    .catch((error) => ctx.note(`error[${error.code}]: ${error.message}`))
    .finally(() => ledger.close());
  ctx.sealkit(
    [
      'contract',
      'publish',
      'retail',
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
    ],
    { tail: 1 },
  );
  ctx.sealkit(['contract', 'affected', 'retail', '--resource', 'retail.source.orders'], { lines: 4 });
  ctx.sealkit(['contract', 'replay', 'retail'], { lines: 2 });

  ctx.say(
    'A typo in a resource file (nulable for nullable) is refused with file, line, column and a suggestion:',
  );
  ctx.shell("sed -i '0,/    type: /s//    nulable: false\\n    type: /' retail/sources/orders.yaml");
  ctx.sealkit(['contract', 'validate', 'retail'], { tail: 1, errors: 5 });
}
