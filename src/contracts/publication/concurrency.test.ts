import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postgresBackend, type TestLedger } from '../../../test/helpers/ledger-backends.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { applyPublicationPlan } from './apply.js';
import type { LedgerConnection } from './connection.js';
import type { PublicationCandidate } from './decide.js';
import { BY_POSITION, SELECT_ENTRY } from './entry.js';
import { candidatesOf, sourceAt } from './fixtures.js';
import { planPublication } from './plan.js';
import { runContractPublication } from './publish.js';
import { replayLedger } from './replay.js';
import { ensureLedgerSchema } from './schema.js';
import { readLedgerState } from './state.js';

const SOURCE = 't.source.orders';

let parser: SqlParser;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
});
afterAll(() => parser.close());

async function source(
  version: string,
  fields: Parameters<typeof sourceAt>[1] = {},
): Promise<PublicationCandidate> {
  return (await candidatesOf({ 'sources/orders.yaml': sourceAt(version, fields) }, parser)).get(
    SOURCE,
  ) as PublicationCandidate;
}

/** Resolves once `count` callers have arrived. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let release: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return () => {
    arrived += 1;
    if (arrived === count) release();
    return all;
  };
}

// Two connections to a real PostgreSQL 15 server publish concurrently: PGlite
// has a single connection, so this part runs on the server only.
describe('two concurrent publishers of one resource on PostgreSQL', () => {
  const backend = postgresBackend();
  let ledger: TestLedger;
  let a: LedgerConnection;
  let b: LedgerConnection;
  beforeAll(() => backend.start());
  afterAll(() => backend.stop());
  beforeEach(async () => {
    ledger = await backend.fresh();
    a = await ledger.connectAgain();
    b = await ledger.connectAgain();
    const v1 = await source('1.0.0');
    await ledger.owner.transaction(async (session) => {
      await ensureLedgerSchema(session);
      const state = await readLedgerState(session, [SOURCE]);
      await applyPublicationPlan(
        session,
        planPublication(state, [{ candidate: v1, baseline: 'genesis', approval: null }]),
      );
    });
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await ledger.dispose();
  });

  const settle = async (results: PromiseSettledResult<unknown>[]) => ({
    won: results.filter((result) => result.status === 'fulfilled').length,
    refused: results.flatMap((result) =>
      result.status === 'rejected' ? [(result.reason as { code?: string }).code] : [],
    ),
  });

  for (const isolation of ['READ COMMITTED', 'REPEATABLE READ'] as const) {
    it(`exactly one wins and the other gets a stale baseline (${isolation}, both planned on the same baseline)`, async () => {
      for (let round = 1; round <= 5; round += 1) {
        const baseline = (await readLedgerState(ledger.owner.session, [SOURCE])).resources
          .get(SOURCE)
          ?.at(-1);
        const version = `1.${round}.0`;
        // Deprecation guidance changes are compatible whichever candidate won the round before.
        const candidates = [
          await source(version, { status: { deprecation: { guidance: `Publisher A, round ${round}.` } } }),
          await source(version, { status: { deprecation: { guidance: `Publisher B, round ${round}.` } } }),
        ];
        const planned = barrier(2);
        const publisher = (connection: LedgerConnection, candidate: PublicationCandidate) =>
          connection.transaction(async (session) => {
            await session.query(`SET TRANSACTION ISOLATION LEVEL ${isolation}`);
            const state = await readLedgerState(session, [SOURCE]);
            const plan = planPublication(state, [
              { candidate, baseline: baseline?.digest ?? 'genesis', approval: null },
            ]);
            await planned();
            return applyPublicationPlan(session, plan);
          });
        const outcome = await settle(
          await Promise.allSettled([
            publisher(a, candidates[0] as PublicationCandidate),
            publisher(b, candidates[1] as PublicationCandidate),
          ]),
        );
        expect(outcome).toEqual({ won: 1, refused: ['contract_ledger_baseline_stale'] });
      }
      const rows = await ledger.owner.session.query(`${SELECT_ENTRY} ORDER BY ${BY_POSITION}`);
      expect(rows).toHaveLength(6);
      expect((await replayLedger(ledger.owner.session)).entries).toBe(6);
    });
  }

  it('publishing against the latest under the lock: the second sees the first (reused version, or idempotent)', async () => {
    const different = [
      { id: SOURCE, ...(await source('1.1.0', { amount: { critical_data_element: true } })) },
      { id: SOURCE, ...(await source('1.1.0', { status: { nullable: false } })) },
    ];
    const runs = await Promise.allSettled(
      [a, b].map((connection, index) =>
        runContractPublication(connection, [different[index] as (typeof different)[number]], {
          approval: null,
          dryRun: false,
        }),
      ),
    );
    const statuses = runs.map((run) =>
      run.status === 'fulfilled' ? run.value.plan.items[0]?.status : 'error',
    );
    expect(statuses.sort()).toEqual(['append', 'refused']);
    const refused = runs.flatMap((run) =>
      run.status === 'fulfilled' && run.value.plan.items[0]?.refusal
        ? [run.value.plan.items[0].refusal.code]
        : [],
    );
    expect(refused).toEqual(['contract_ledger_version_reused']);

    // Compatible with whichever of the two won above.
    const same = {
      id: SOURCE,
      ...(await source('1.2.0', { amount: { critical_data_element: true }, status: { nullable: false } })),
    };
    const again = await Promise.all(
      [a, b].map((connection) =>
        runContractPublication(connection, [same], { approval: null, dryRun: false }),
      ),
    );
    expect(again.map((run) => run.plan.items[0]?.status).sort()).toEqual(['append', 'unchanged']);
    expect((await replayLedger(ledger.owner.session)).entries).toBe(3);
  });
});
