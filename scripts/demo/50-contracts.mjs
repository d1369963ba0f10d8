// Version and publish data contracts: a project with two mistakes validated
// (both reported at once); the example retail project (sources,
// models, semantic models, dashboards) published to the embedded append-only
// ledger and projected to canonical bytes with a SHA-256 identity; a field
// widened, classified (and failed with --fail-on, as CI would), refused
// without an approval, a forged plan refused, then approved and appended; the
// dashboards it reaches; the whole ledger replayed; on a copy, a deleted
// resource found by the next publication.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'version and publish data contracts';

/**
 * A program that plans the approved publication through the library, then
 * forges the plan (approval dropped, verdict rewritten) and applies it.
 */
const forgery = (library) => `import * as sealkit from '${library}';
const id = 'retail.source.orders', approved = { approves: \`\${id}@1.4.0\`, approver: 'A', approvedAt: '2026-03-01T09:30:00Z', reason: 'R' };
const resource = (await sealkit.openContractProject('retail')).project(id);
const ledger = await sealkit.openLedger(sealkit.ledgerLocation(undefined, 'retail'), { create: false });
await ledger.transaction(async (session) => {
  const plan = sealkit.planLatestPublication(await sealkit.readLedgerState(session, [id]), [{ id, ...resource }], approved);
  const items = plan.items.map((item) => ({ ...item, entry: { ...item.entry, verdict: 'compatible', approval: null } }));
  await sealkit.applyPublicationPlan(session, { ...plan, items });
}).catch((error) => { console.error(\`error[\${error.code}]: \${error.message}\`); process.exitCode = 2; }).finally(() => ledger.close());
`;

/**
 * A program that does what a database superuser can: with the append-only
 * triggers bypassed for its session, it deletes every entry of one resource.
 */
const tamper = (library) => `import * as sealkit from '${library}';
const ledger = await sealkit.openLedger(sealkit.ledgerLocation(undefined, 'tampered'), { create: false });
await ledger.transaction(async (session) => {
  await session.query("SET LOCAL session_replication_role = replica");
  await session.query("DELETE FROM sealkit_ledger.publications WHERE resource_id = 'retail.semantic.customers'");
}).finally(() => ledger.close());
`;

export async function run(ctx) {
  // The tour uses the embedded ledger even where a server is configured for this shell.
  delete process.env.SEALKIT_LEDGER_URL;
  delete process.env.DATABASE_URL;
  const base = join(ctx.workDir, 'contracts');
  cpSync(join(ctx.root, 'examples', 'contracts', 'retail'), join(base, 'retail'), { recursive: true });
  writeFileSync(join(base, 'forge-plan.mjs'), forgery(join(ctx.root, 'dist', 'src', 'index.js')));
  writeFileSync(join(base, 'delete-entries.mjs'), tamper(join(ctx.root, 'dist', 'src', 'index.js')));
  ctx.cd(base);
  ctx.say(
    'Two mistakes in one file (a misspelt key, a scale larger than the precision): validate reports both, each at its line:',
  );
  ctx.shell('cp -r retail typos');
  ctx.shell(
    "sed -i 's/type: decimal(12,2)/type: decimal(12,20)/; 0,/    nullable: false/s//    nulable: false/' typos/sources/orders.yaml",
  );
  ctx.sealkit(['contract', 'validate', 'typos'], { tail: 2, errors: 10 });
  ctx.say(
    'Publish every versioned resource to the ledger; the first line says which ledger (embedded PostgreSQL in retail/.sealkit/ledger, or the server and the variable that named it):',
  );
  ctx.sealkit(['contract', 'publish', 'retail'], {
    pick: (_line, index, all) => index === 0 || index >= all.length - 1,
  });
  ctx.say(
    "Published again with nothing changed: the model SQL's parses come from retail/.sealkit/cache/, DuckDB is not loaded:",
  );
  ctx.sealkit(['contract', 'publish', 'retail'], { tail: 1 });
  ctx.shell('ls retail/.sealkit/cache');
  ctx.sealkit(['contract', 'project', 'retail', '--resource', 'retail.source.orders', '--out', 'before']);

  ctx.say('Widen the order amount and bump the version; the classifier compares the canonical projections:');
  ctx.shell(
    "sed -i 's/type: decimal(12,2)/type: decimal(14,2)/; s/version: 1.3.0/version: 1.4.0/' retail/sources/orders.yaml",
  );
  ctx.sealkit(['contract', 'project', 'retail', '--resource', 'retail.source.orders', '--out', 'after']);
  ctx.say('With --fail-on a CI job fails (exit 2) when the verdict is that level or worse:');
  ctx.sealkit([
    'contract',
    'classify',
    'before/resources/retail.source.orders.json',
    'after/resources/retail.source.orders.json',
    '--fail-on',
    'widening',
  ]);
  ctx.say('A widening needs an approval of exactly ID@VERSION; without one nothing is written:');
  ctx.sealkit(['contract', 'publish', 'retail', '--resource', 'retail.source.orders', '-q']);
  ctx.say(
    'A plan is data, not authority: this program forges the approved plan (approval dropped, verdict rewritten); refused:',
  );
  ctx.show(join(base, 'forge-plan.mjs'), 20);
  ctx.shell('node forge-plan.mjs', { status: 2 });
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
    { tail: 2 },
  );
  ctx.sealkit(['contract', 'affected', 'retail', '--resource', 'retail.source.orders']);
  ctx.sealkit(['contract', 'replay', 'retail']);
  ctx.say(
    "On a copy, a superuser deletes every entry of one resource, bypassing the triggers. Publishing it again is refused at the deleted position, not taken as a new genesis: each entry commits to every resource's latest entry:",
  );
  ctx.shell('cp -r retail tampered && node delete-entries.mjs');
  ctx.sealkit(['contract', 'publish', 'tampered', '--resource', 'retail.semantic.customers']);
  ctx.say(
    'A ledger URL typed where the folder goes is a usage error naming --ledger; sealkit never repeats the URL:',
  );
  ctx.sealkit(['contract', 'replay', 'postgres://ci:s3cret@db.invalid/contracts']);
}
