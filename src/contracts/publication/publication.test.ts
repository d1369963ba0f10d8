import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type LedgerBackend,
  pgliteBackend,
  postgresBackend,
  type TestLedger,
} from '../../../test/helpers/ledger-backends.js';
import type { Sha256Prefixed } from '../../core/digest/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { applyPublicationPlan } from './apply.js';
import type { WideningApproval } from './approval.js';
import { connectionOver } from './connection.js';
import type { PublicationCandidate, PublicationRequest } from './decide.js';
import * as entryModule from './entry.js';
import { BY_POSITION, type LedgerEntry, SELECT_ENTRY } from './entry.js';
import { approvalOf, candidatesOf, sourceAt } from './fixtures.js';
import { readPublicationHistory } from './history.js';
import { type PublicationPlan, planPublication } from './plan.js';
import { runContractPublication } from './publish.js';
import { refuseLedger } from './refusals.js';
import { replayLedger } from './replay.js';
import { bucketDigestOf, IndexBuilder, indexBucketOf } from './resource-index.js';
import { APPEND_ONLY_SQLSTATE, ensureLedgerSchema, LEDGER_TABLE } from './schema.js';
import { type LedgerSession, LedgerSqlError } from './session.js';
import { readLedgerState } from './state.js';

const SOURCE = 't.source.orders';
const MODEL = 't.model.facts';
const SEMANTIC = 't.semantic.orders';

let parser: SqlParser;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
});
afterAll(() => parser.close());

/** The base source at a version, with field changes; its canonical candidate. */
async function source(
  version: string,
  fields: Parameters<typeof sourceAt>[1] = {},
): Promise<PublicationCandidate> {
  return (await candidatesOf({ 'sources/orders.yaml': sourceAt(version, fields) }, parser)).get(
    SOURCE,
  ) as PublicationCandidate;
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error: unknown) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'accepted';
}

for (const backend of [pgliteBackend(), postgresBackend()] satisfies LedgerBackend[]) {
  describe(`the publication ledger on ${backend.name}`, () => {
    let ledger: TestLedger;
    beforeAll(() => backend.start());
    afterAll(() => backend.stop());
    beforeEach(async () => {
      ledger = await backend.fresh();
    });
    afterEach(() => ledger.dispose());

    /** Plans against the current state and applies in one owner transaction. */
    const publish = (requests: readonly PublicationRequest[]) =>
      ledger.owner.transaction(async (session) => {
        await ensureLedgerSchema(session);
        const state = await readLedgerState(session, [SOURCE, MODEL, SEMANTIC]);
        const plan = planPublication(state, requests);
        return { plan, applied: await applyPublicationPlan(session, plan) };
      });
    const request = (
      candidate: PublicationCandidate,
      baseline: PublicationRequest['baseline'],
      approval: WideningApproval | null = null,
    ): PublicationRequest => ({ candidate, baseline, approval });
    const planOnly = (requests: readonly PublicationRequest[]) =>
      ledger.owner.transaction(async (session) =>
        planPublication(await readLedgerState(session, [SOURCE, MODEL, SEMANTIC]), requests),
      );
    const refusalOf = (plan: PublicationPlan) => plan.items[0]?.refusal?.code;
    const rows = () => ledger.owner.session.query(`${SELECT_ENTRY} ORDER BY ${BY_POSITION}`);

    it('appends a genesis entry bound to its bytes, digest, checks and direct identity', async () => {
      const v1 = await source('1.0.0');
      const { plan, applied } = await publish([request(v1, 'genesis')]);
      expect(plan.items.map((item) => item.status)).toEqual(['append']);
      const entry = applied.appended[0] as LedgerEntry;
      expect(entry).toMatchObject({
        position: 1,
        previousHash: 'genesis',
        profile: 'leapview.contract/v1',
        resource: { kind: 'Source', id: SOURCE },
        version: '1.0.0',
        compatibility: 'backward',
        digest: v1.digest,
        baseline: 'genesis',
        verdict: 'genesis',
        security: 'unchanged',
        changes: [],
        checks: ['baseline_genesis', 'canonical_decoding', 'digest'],
        affected: { kind: 'Source', id: SOURCE },
        approval: null,
      });
      expect(Buffer.from(entry.projection).equals(Buffer.from(v1.bytes))).toBe(true);
      expect(applied.head).toEqual({ position: 1, entryHash: entry.entryHash });
      const history = await readPublicationHistory(ledger.owner.session, SOURCE);
      expect(history.map((item) => item.entryHash)).toEqual([entry.entryHash]);
      expect(await replayLedger(ledger.owner.session)).toEqual({
        entries: 1,
        resources: 1,
        head: applied.head,
      });
    });

    it('re-publishing identical bytes is idempotent (a retry with the original baseline too)', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const again = await publish([request(v1, v1.digest)]);
      expect(again.plan.items[0]?.status).toBe('unchanged');
      expect(again.applied.appended).toEqual([]);
      const retry = await publish([request(v1, 'genesis')]);
      expect(retry.plan.items[0]?.status).toBe('unchanged');
      expect(await rows()).toHaveLength(1);
    });

    it('chains a compatible change on its baseline and records the classification', async () => {
      const v1 = await source('1.0.0');
      const v11 = await source('1.1.0', { status: { nullable: false } });
      const first = await publish([request(v1, 'genesis')]);
      const { applied } = await publish([request(v11, v1.digest)]);
      const entry = applied.appended[0] as LedgerEntry;
      expect(entry).toMatchObject({
        position: 2,
        previousHash: first.applied.head?.entryHash,
        baseline: v1.digest,
        verdict: 'compatible',
        checks: ['baseline_current', 'canonical_decoding', 'classification', 'digest', 'version_increases'],
        changes: [
          {
            path: 'content.fields[status].nullable',
            rule: 'field_nullable_tightened',
            verdict: 'compatible',
          },
          { path: 'contract.version', rule: 'version_changed', verdict: 'compatible' },
        ],
      });
      expect((await replayLedger(ledger.owner.session)).entries).toBe(2);
    });

    it('refuses a version reused with different bytes', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const other = await source('1.0.0', { status: { nullable: false } });
      const plan = await planOnly([request(other, v1.digest)]);
      expect(refusalOf(plan)).toBe('contract_ledger_version_reused');
      // A change that is not breaking: any version above the newest will do.
      expect(plan.items[0]?.refusal?.hint).toBe(
        '1.0.0 is published with other content: write a version above 1.0.0, the newest in the ledger, e.g. 1.0.1',
      );
      // regression: the changes that make the bytes differ were not part of the refused item.
      expect(plan.items[0]?.classification?.changes.map((change) => change.rule)).toEqual([
        'field_nullable_tightened',
      ]);
    });

    it('regression: a reused version that widens names the approval the next attempt needs', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const wider = await source('1.0.0', { amount: { type: 'decimal(14,2)' } });
      const plan = await planOnly([request(wider, v1.digest)]);
      expect(refusalOf(plan)).toBe('contract_ledger_version_reused');
      expect(plan.items[0]?.classification?.verdict).toBe('widening');
      expect(plan.items[0]?.refusal?.hint).toBe(
        `1.0.0 is published with other content: write a version above 1.0.0, the newest in the ledger, e.g. 1.0.1; it also widens, so approve the version you write: --approve-widening ${SOURCE}@1.0.1 --approver NAME --reason TEXT`,
      );
      // Following the hint exactly appends.
      const next = await source('1.0.1', { amount: { type: 'decimal(14,2)' } });
      const { plan: appended } = await publish([request(next, v1.digest, approvalOf(`${SOURCE}@1.0.1`))]);
      expect(appended.items[0]?.status).toBe('append');
    });

    it('refuses a version that does not increase', async () => {
      const v2 = await source('2.0.0');
      await publish([request(v2, 'genesis')]);
      const lower = await source('1.9.0', { status: { nullable: false } });
      const plan = await planOnly([request(lower, v2.digest)]);
      expect(refusalOf(plan)).toBe('contract_ledger_version_not_increasing');
      expect(plan.items[0]?.refusal?.hint).toBe(
        '1.9.0 is not above 2.0.0; write a version above 2.0.0, the newest in the ledger, e.g. 2.0.1',
      );
    });

    it('regression: a version that does not increase, for a breaking change, asks for the next major', async () => {
      const v14 = await source('1.4.0');
      await publish([request(v14, 'genesis')]);
      const removed = await source('1.3.5', { status: { type: 'int32' } });
      const plan = await planOnly([request(removed, v14.digest)]);
      expect(refusalOf(plan)).toBe('contract_ledger_version_not_increasing');
      expect(plan.items[0]?.refusal?.hint).toBe(
        "1.3.5 is not above 1.4.0; the change is breaking: write version 2.0.0 or above (the ledger's newest is 1.4.0)",
      );
    });

    it('refuses a breaking change without a major bump and appends it with one', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const minor = await source('1.1.0', { amount: { type: 'string' } });
      expect(refusalOf(await planOnly([request(minor, v1.digest)]))).toBe(
        'contract_ledger_major_bump_required',
      );
      const major = await source('2.0.0', { amount: { type: 'string' } });
      const { applied } = await publish([request(major, v1.digest)]);
      expect(applied.appended[0]).toMatchObject({
        verdict: 'breaking',
        checks: expect.arrayContaining(['major_version_bump']),
      });
    });

    it('refuses a widening without approval, with an approval of another version, and an approval where nothing widens', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const widened = await source('1.1.0', { amount: { type: 'decimal(14,2)' } });
      expect(refusalOf(await planOnly([request(widened, v1.digest)]))).toBe(
        'contract_ledger_approval_required',
      );
      const otherVersion = await planOnly([request(widened, v1.digest, approvalOf(`${SOURCE}@1.2.0`))]);
      expect(refusalOf(otherVersion)).toBe('contract_ledger_approval_mismatch');
      // regression: the refusal did not say which version the run publishes.
      expect(otherVersion.items[0]?.refusal?.hint).toBe(
        `the approval names 1.2.0; approve ${SOURCE}@1.1.0, the version this run publishes: --approve-widening ${SOURCE}@1.1.0`,
      );
      expect(refusalOf(await planOnly([request(widened, v1.digest, approvalOf(`${MODEL}@1.1.0`))]))).toBe(
        'contract_ledger_approval_mismatch',
      );
      const compatible = await source('1.1.0', { status: { nullable: false } });
      expect(refusalOf(await planOnly([request(compatible, v1.digest, approvalOf(`${SOURCE}@1.1.0`))]))).toBe(
        'contract_ledger_approval_unexpected',
      );
      expect(await rows()).toHaveLength(1);
    });

    it('refuses an approval on a genesis publication', async () => {
      const v1 = await source('1.0.0');
      expect(refusalOf(await planOnly([request(v1, 'genesis', approvalOf(`${SOURCE}@1.0.0`))]))).toBe(
        'contract_ledger_approval_unexpected',
      );
    });

    it('regression: an approval for a resource left unchanged is refused, naming why, unless it retries its own publication', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      // A version nobody wrote into the file (not saved, not bumped): nothing of it is published.
      const unsaved = await planOnly([request(v1, v1.digest, approvalOf(`${SOURCE}@1.3.0`))]);
      expect(unsaved.items[0]).toMatchObject({ status: 'refused', version: '1.0.0' });
      expect(unsaved.items[0]?.refusal).toMatchObject({
        code: 'contract_ledger_approval_unexpected',
        field: 'approval',
        hint: `${SOURCE} is unchanged at 1.0.0 (published at position 1), so this run publishes no 1.3.0: write version 1.3.0 and the change into its file and save it, or drop --approve-widening ${SOURCE}@1.3.0`,
      });
      const same = await planOnly([request(v1, v1.digest, approvalOf(`${SOURCE}@1.0.0`))]);
      expect(same.items[0]?.refusal?.hint).toBe(
        `${SOURCE} is unchanged at 1.0.0 (published at position 1) and nothing of it widened then: there is nothing to approve; drop --approve-widening ${SOURCE}@1.0.0`,
      );
      // A retry of an approved widening whose commit outcome was unknown stays idempotent.
      const widened = await source('1.1.0', { amount: { type: 'decimal(14,2)' } });
      const approval = approvalOf(`${SOURCE}@1.1.0`);
      await publish([request(widened, v1.digest, approval)]);
      const retry = await publish([
        request(widened, v1.digest, { ...approval, approvedAt: '2026-03-01T09:31:00Z' }),
      ]);
      expect(retry.plan.items[0]?.status).toBe('unchanged');
      expect(await rows()).toHaveLength(2);
    });

    it('regression: an approval where nothing widens says what the change is and to drop the flag', async () => {
      const v1 = await source('1.0.0');
      expect(
        (await planOnly([request(v1, 'genesis', approvalOf(`${SOURCE}@1.0.0`))])).items[0]?.refusal?.hint,
      ).toBe(
        `${SOURCE} is published for the first time (genesis): there is no earlier version it could widen, so nothing needs approval; drop --approve-widening ${SOURCE}@1.0.0`,
      );
      await publish([request(v1, 'genesis')]);
      const compatible = await source('1.1.0', { status: { nullable: false } });
      expect(
        (await planOnly([request(compatible, v1.digest, approvalOf(`${SOURCE}@1.1.0`))])).items[0]?.refusal
          ?.hint,
      ).toBe(
        `the change from 1.0.0 to 1.1.0 is compatible: nothing widens, so nothing needs approval; drop --approve-widening ${SOURCE}@1.1.0`,
      );
    });

    it('appends an approved widening with the approval bound into its hash', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const widened = await source('1.1.0', {
        amount: { type: 'decimal(14,2)' },
        status: { classification: 'public' },
      });
      const approval = approvalOf(`${SOURCE}@1.1.0`);
      const { applied } = await publish([request(widened, v1.digest, approval)]);
      expect(applied.appended[0]).toMatchObject({
        verdict: 'widening',
        security: 'widened',
        approval,
        checks: expect.arrayContaining(['widening_approval']),
      });
      expect((await replayLedger(ledger.owner.session)).entries).toBe(2);
    });

    it('refuses stale and mismatched baselines', async () => {
      const v1 = await source('1.0.0');
      const v11 = await source('1.1.0', { status: { nullable: false } });
      const v12 = await source('1.2.0', { status: { nullable: false, classification: 'confidential' } });
      const model = (await candidatesOf({}, parser)).get(MODEL) as PublicationCandidate;
      await publish([request(v1, 'genesis')]);
      await publish([request(v11, v1.digest)]);
      expect(refusalOf(await planOnly([request(v12, 'genesis')]))).toBe('contract_ledger_baseline_stale');
      expect(refusalOf(await planOnly([request(v12, v1.digest)]))).toBe('contract_ledger_baseline_stale');
      expect(refusalOf(await planOnly([request(v12, model.digest)]))).toBe(
        'contract_ledger_baseline_mismatch',
      );
      expect(refusalOf(await planOnly([request(model, v1.digest)]))).toBe(
        'contract_ledger_baseline_mismatch',
      );
    });

    it('lets exactly one of two plans on the same baseline win; the other gets a stale baseline', async () => {
      const v1 = await source('1.0.0');
      await publish([request(v1, 'genesis')]);
      const a = await source('1.1.0', { status: { nullable: false } });
      const b = await source('1.1.0', { amount: { critical_data_element: true } });
      const planA = await planOnly([request(a, v1.digest)]);
      const planB = await planOnly([request(b, v1.digest)]);
      await ledger.owner.transaction((session) => applyPublicationPlan(session, planA));
      expect(await codeOf(ledger.owner.transaction((session) => applyPublicationPlan(session, planB)))).toBe(
        'contract_ledger_baseline_stale',
      );
      expect(await rows()).toHaveLength(2);
    });

    it('refuses a plan whose chain head moved (another resource was published)', async () => {
      const all = await candidatesOf({}, parser);
      const planSource = await planOnly([request(all.get(SOURCE) as PublicationCandidate, 'genesis')]);
      const planModel = await planOnly([request(all.get(MODEL) as PublicationCandidate, 'genesis')]);
      await ledger.owner.transaction((session) => applyPublicationPlan(session, planSource));
      expect(
        await codeOf(ledger.owner.transaction((session) => applyPublicationPlan(session, planModel))),
      ).toBe('contract_ledger_plan_stale');
    });

    it('appends several resources in one plan as consecutive, chained positions sorted by id', async () => {
      const all = await candidatesOf({}, parser);
      const { applied } = await publish([...all.values()].map((candidate) => request(candidate, 'genesis')));
      expect(applied.appended.map((entry) => [entry.position, entry.resource.id])).toEqual([
        [1, MODEL],
        [2, SEMANTIC],
        [3, SOURCE],
      ]);
      expect(applied.appended[1]?.previousHash).toBe(applied.appended[0]?.entryHash);
      expect((await replayLedger(ledger.owner.session)).resources).toBe(3);
    });

    it('orders entries by numeric position past 9 (the head, history and replay), not by their text', async () => {
      let previous: PublicationCandidate | null = null;
      for (let minor = 0; minor < 12; minor += 1) {
        // Each version adds deprecation guidance text: a compatible change on top of the one before.
        const next = await source(`1.${minor}.0`, {
          status: { deprecation: { guidance: `Step ${minor}.` } },
        });
        const { applied } = await publish([request(next, previous?.digest ?? 'genesis')]);
        expect(applied.head?.position).toBe(minor + 1);
        previous = next;
      }
      const history = await readPublicationHistory(ledger.owner.session, SOURCE);
      expect(history.map((entry) => entry.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect((await readLedgerState(ledger.owner.session, [SOURCE])).head?.position).toBe(12);
      expect((await replayLedger(ledger.owner.session)).head?.position).toBe(12);
    });

    it('refuses, as items, every request of a resource named twice and one the state was not read for', async () => {
      const v1 = await source('1.0.0');
      const v2 = await source('2.0.0');
      const model = (await candidatesOf({}, parser)).get(MODEL) as PublicationCandidate;
      const twice = await planOnly([
        request(v2, 'genesis'),
        request(model, 'genesis'),
        request(v1, 'genesis'),
      ]);
      expect(twice.items.map((item) => [item.resource?.id, item.status, item.refusal?.code ?? null])).toEqual(
        [
          [MODEL, 'append', null],
          [SOURCE, 'refused', 'contract_ledger_request_duplicate'],
          [SOURCE, 'refused', 'contract_ledger_request_duplicate'],
        ],
      );
      expect(twice.refused).toBe(2);
      const unread = await ledger.owner.transaction(async (session) =>
        planPublication(await readLedgerState(session, [MODEL]), [request(v1, 'genesis')]),
      );
      expect(unread.items.map((item) => [item.status, item.refusal?.code])).toEqual([
        ['refused', 'contract_ledger_state_incomplete'],
      ]);
      expect(await codeOf(ledger.owner.transaction((session) => applyPublicationPlan(session, unread)))).toBe(
        'contract_ledger_state_incomplete',
      );
    });

    describe('a plan cannot be forged', () => {
      const { entryHashOf } = entryModule;
      /** A plan for a compatible change, made but not applied. */
      async function compatiblePlan() {
        const v1 = await source('1.0.0');
        await publish([request(v1, 'genesis')]);
        const v11 = await source('1.1.0', { status: { nullable: false } });
        return { v1, plan: await planOnly([request(v11, v1.digest)]) };
      }
      /** The plan with its one item's entry replaced (hash recomputed, as a forger would). */
      const forge = (plan: PublicationPlan, change: (entry: LedgerEntry) => Partial<LedgerEntry>) => {
        const [item] = plan.items;
        const entry = item?.entry as LedgerEntry;
        const unhashed = { ...entry, ...change(entry) };
        const forged = { ...unhashed, entryHash: entryHashOf(unhashed) };
        return { ...plan, items: [{ ...item, digest: forged.digest, entry: forged }] } as PublicationPlan;
      };
      const applyForged = async (plan: PublicationPlan) => {
        const code = await codeOf(ledger.owner.transaction((session) => applyPublicationPlan(session, plan)));
        expect(await rows()).toHaveLength(1);
        expect((await replayLedger(ledger.owner.session)).entries).toBe(1);
        return code;
      };

      it('refuses a plan whose bytes were swapped for a breaking change, its hashes recomputed', async () => {
        const { plan } = await compatiblePlan();
        const breaking = await source('1.1.0', { amount: { type: 'string' } });
        expect(
          await applyForged(forge(plan, () => ({ projection: breaking.bytes, digest: breaking.digest }))),
        ).toBe('contract_ledger_plan_forged');
      });

      it('refuses a plan whose verdict, changes, checks or approval were rewritten', async () => {
        const { plan } = await compatiblePlan();
        const forgeries: ((entry: LedgerEntry) => Partial<LedgerEntry>)[] = [
          () => ({ verdict: 'widening' }),
          () => ({ changes: [] }),
          () => ({ checks: ['digest'] }),
          () => ({ security: 'narrowed' }),
          (entry) => ({ affected: { ...entry.resource, id: 't.source.other' } }),
          () => ({ approval: approvalOf(`${SOURCE}@1.1.0`) }),
          () => ({ position: 5 }),
        ];
        for (const change of forgeries) {
          expect(await applyForged(forge(plan, change))).toBe('contract_ledger_plan_forged');
        }
      });

      it('refuses a plan whose entry hash or classification was changed without the entry', async () => {
        const { plan } = await compatiblePlan();
        const [item] = plan.items;
        const badHash = {
          ...plan,
          items: [
            { ...item, entry: { ...(item?.entry as LedgerEntry), entryHash: `sha256:${'4'.repeat(64)}` } },
          ],
        } as unknown as PublicationPlan;
        expect(await applyForged(badHash)).toBe('contract_ledger_plan_forged');
        const quiet = {
          ...plan,
          items: [{ ...item, classification: { ...item?.classification, verdict: 'identical' } }],
        } as unknown as PublicationPlan;
        expect(await applyForged(quiet)).toBe('contract_ledger_plan_forged');
        const appendsMore = { ...plan, appends: 2 } as PublicationPlan;
        expect(await applyForged(appendsMore)).toBe('contract_ledger_plan_forged');
      });

      it('applies the plan as the planner made it', async () => {
        const { plan } = await compatiblePlan();
        const applied = await ledger.owner.transaction((session) => applyPublicationPlan(session, plan));
        expect(applied.appended[0]?.entryHash).toBe(plan.items[0]?.entry?.entryHash);
        expect((await replayLedger(ledger.owner.session)).entries).toBe(2);
      });
    });

    /** Publishes v1 of the source as the publisher role; the refusal, if any. */
    const publishAsPublisher = (v1: PublicationCandidate) =>
      ledger.asPublisher((session) =>
        runContractPublication(
          connectionOver(backend.name, session, async () => undefined),
          [{ id: SOURCE, ...v1 }],
          {
            approval: null,
            dryRun: false,
          },
        ).then(
          () => undefined,
          (caught: unknown) => caught as Refusal,
        ),
      );

    it('regression: a first publication by a role that may not create the ledger says so and who may', async () => {
      const v1 = await source('1.0.0');
      const error = await publishAsPublisher(v1);
      expect(error?.code).toBe('contract_ledger_missing');
      expect(error?.hint).toBe(
        'this role may not create schema sealkit_ledger in this database (no CREATE privilege on the database): run the first publication as a role that may (the database owner, say); later ones can run as a member of sealkit_ledger_publisher',
      );
      // The documented order: the owner's first publication creates it, then the publisher appends.
      await ledger.owner.transaction((session) => ensureLedgerSchema(session));
      expect(await publishAsPublisher(v1)).toBeUndefined();
    });

    it('regression: a table the role may not create in an existing schema is named as such', async () => {
      const v1 = await source('1.0.0');
      await ledger.owner.session.query('CREATE SCHEMA sealkit_ledger');
      await ledger.owner.session.query('GRANT USAGE ON SCHEMA sealkit_ledger TO sealkit_ledger_publisher');
      const error = await publishAsPublisher(v1);
      expect(error?.code).toBe('contract_ledger_missing');
      expect(error?.hint).toMatch(
        /^this role may not create the ledger table in schema sealkit_ledger \(no CREATE privilege on the schema\): run the first publication as /,
      );
    });

    it('turns a failing statement into contract_ledger_failed, without the database text', async () => {
      const v1 = await source('1.0.0');
      // The ledger exists, but its grants to the publisher role were taken back: the database refuses the read.
      await ledger.owner.transaction((session) => ensureLedgerSchema(session));
      await ledger.owner.session.query(
        `REVOKE SELECT, INSERT ON ${LEDGER_TABLE} FROM sealkit_ledger_publisher`,
      );
      const error = await publishAsPublisher(v1);
      expect(error?.code).toBe('contract_ledger_failed');
      expect(error?.message).toBe(
        'the ledger database refused or failed a statement; the transaction was not committed',
      );
      expect(error?.hint).toContain(
        'GRANT USAGE ON SCHEMA sealkit_ledger TO sealkit_ledger_publisher; GRANT SELECT, INSERT ON sealkit_ledger.publications TO sealkit_ledger_publisher;',
      );
    });

    it('never applies a plan that refused an item, and writes nothing', async () => {
      const v1 = await source('1.0.0');
      const plan = await planOnly([request(v1, 'genesis', approvalOf(`${SOURCE}@1.0.0`))]);
      expect(await codeOf(ledger.owner.transaction((session) => applyPublicationPlan(session, plan)))).toBe(
        'contract_ledger_approval_unexpected',
      );
      const run = await runContractPublication(ledger.owner, [{ id: SOURCE, ...v1 }], {
        approval: approvalOf(`${SOURCE}@1.0.0`),
        dryRun: false,
      });
      expect(run.applied).toBeNull();
      const exists = await ledger.owner.session.query(
        `SELECT to_regclass('${LEDGER_TABLE}') IS NOT NULL AS present`,
      );
      expect(exists[0]?.present).toBe(false);
    });

    it('requires the caller to own a transaction, and never commits by itself', async () => {
      const v1 = await source('1.0.0');
      expect(await codeOf(ensureLedgerSchema(ledger.owner.session))).toBe(
        'contract_ledger_transaction_required',
      );
      const { session } = ledger.owner;
      await session.query('BEGIN');
      await ensureLedgerSchema(session);
      const plan = planPublication(await readLedgerState(session, [SOURCE]), [request(v1, 'genesis')]);
      await applyPublicationPlan(session, plan);
      await session.query('ROLLBACK');
      // The caller rolled back: nothing of it remains, not even the schema.
      const exists = await session.query(`SELECT to_regclass('${LEDGER_TABLE}') IS NOT NULL AS present`);
      expect(exists[0]?.present).toBe(false);
    });

    it('runs a publication as a dry run without writing anything', async () => {
      const v1 = await source('1.0.0');
      const run = await runContractPublication(ledger.owner, [{ id: SOURCE, ...v1 }], {
        approval: null,
        dryRun: true,
      });
      expect(run.plan.items.map((item) => item.status)).toEqual(['append']);
      expect(run.applied).toBeNull();
      const exists = await ledger.owner.session.query(
        `SELECT to_regclass('${LEDGER_TABLE}') IS NOT NULL AS present`,
      );
      expect(exists[0]?.present).toBe(false);
      // The real run writes the very entry the dry run planned.
      const real = await runContractPublication(ledger.owner, [{ id: SOURCE, ...v1 }], {
        approval: null,
        dryRun: false,
      });
      expect(real.applied?.appended[0]?.entryHash).toBe(run.plan.items[0]?.entry?.entryHash);
    });

    it('regression: a run asked for them names the resources the ledger holds that it does not publish', async () => {
      const all = await candidatesOf({}, parser);
      const withIds = [...all].map(([id, candidate]) => ({ id, ...candidate }));
      const first = await runContractPublication(ledger.owner, withIds, {
        approval: null,
        dryRun: false,
        absent: true,
      });
      expect(first.absent).toEqual([]);
      const sourceOnly = withIds.filter((candidate) => candidate.id === SOURCE);
      for (const dryRun of [true, false]) {
        const run = await runContractPublication(ledger.owner, sourceOnly, {
          approval: null,
          dryRun,
          absent: true,
        });
        expect(run.plan.items.map((item) => item.status)).toEqual(['unchanged']);
        // Sorted by id, each the latest stored entry of its resource, verified as read.
        expect(run.absent.map((entry) => [entry.resource.id, entry.version, entry.entryHash])).toEqual(
          [MODEL, SEMANTIC].map((id) => {
            const entry = first.applied?.appended.find((one) => one.resource.id === id) as LedgerEntry;
            return [id, entry.version, entry.entryHash];
          }),
        );
      }
      // Not asked for, nothing is read for them.
      expect(
        (await runContractPublication(ledger.owner, sourceOnly, { approval: null, dryRun: true })).absent,
      ).toEqual([]);
      expect(await rows()).toHaveLength(3);
    });

    describe('append-only in the database', () => {
      const statements = [
        `UPDATE ${LEDGER_TABLE} SET version = '9.9.9'`,
        `DELETE FROM ${LEDGER_TABLE}`,
        `TRUNCATE ${LEDGER_TABLE}`,
      ];
      const sqlstate = async (session: LedgerSession, text: string) => {
        try {
          await session.query(text);
        } catch (error: unknown) {
          return error instanceof LedgerSqlError ? error.sqlstate : 'other';
        }
        return 'accepted';
      };

      it('refuses UPDATE, DELETE and TRUNCATE even for the owner (trigger)', async () => {
        await publish([request(await source('1.0.0'), 'genesis')]);
        for (const text of statements) {
          expect(await sqlstate(ledger.owner.session, text)).toBe(APPEND_ONLY_SQLSTATE);
        }
        expect(await rows()).toHaveLength(1);
      });

      it('gives the publisher role only SELECT and INSERT (privileges)', async () => {
        const v1 = await source('1.0.0');
        await publish([request(v1, 'genesis')]);
        const v11 = await source('1.1.0', { status: { nullable: false } });
        await ledger.asPublisher(async (session) => {
          for (const text of statements) expect(await sqlstate(session, text)).toBe('42501');
          await session.query('BEGIN');
          const state = await readLedgerState(session, [SOURCE]);
          await applyPublicationPlan(session, planPublication(state, [request(v11, v1.digest)]));
          await session.query('COMMIT');
        });
        expect(await rows()).toHaveLength(2);
      });

      it('refuses to publish to or read a ledger whose triggers are disabled or bypassed', async () => {
        const v1 = await source('1.0.0');
        await publish([request(v1, 'genesis')]);
        const { session } = ledger.owner;
        await session.query(`ALTER TABLE ${LEDGER_TABLE} DISABLE TRIGGER publications_append_only`);
        const v11 = await source('1.1.0', { status: { nullable: false } });
        expect(await codeOf(publish([request(v11, v1.digest)]))).toBe('contract_ledger_unprotected');
        expect(await codeOf(replayLedger(session))).toBe('contract_ledger_unprotected');
        expect(await codeOf(readPublicationHistory(session, SOURCE))).toBe('contract_ledger_unprotected');
        await session.query(`ALTER TABLE ${LEDGER_TABLE} ENABLE TRIGGER publications_append_only`);
        await session.query('SET session_replication_role = replica');
        expect(await codeOf(publish([request(v11, v1.digest)]))).toBe('contract_ledger_unprotected');
        await session.query('SET session_replication_role = origin');
        expect(await codeOf(publish([request(v11, v1.digest)]))).toBe('accepted');
      });

      it('regression: an unprotected ledger names the trigger that is off and the statement that restores it', async () => {
        const v1 = await source('1.0.0');
        await publish([request(v1, 'genesis')]);
        const { session } = ledger.owner;
        const hintOf = async () =>
          replayLedger(session).then(
            () => undefined,
            (error: unknown) => (error as Refusal).hint,
          );
        await session.query(`ALTER TABLE ${LEDGER_TABLE} DISABLE TRIGGER publications_append_only`);
        const disabled = await hintOf();
        expect(disabled).toBe(
          'the append-only trigger publications_append_only is disabled, so nothing keeps entries from being updated or deleted. Enable it as the table owner: ALTER TABLE sealkit_ledger.publications ENABLE TRIGGER publications_append_only;',
        );
        await session.query((disabled ?? '').slice((disabled ?? '').indexOf('ALTER TABLE')));
        await session.query(`DROP TRIGGER publications_no_truncate ON ${LEDGER_TABLE}`);
        const dropped = await hintOf();
        expect(dropped).toBe(
          'the append-only trigger publications_no_truncate was dropped, so nothing keeps the table from being truncated. Restore it as the table owner: CREATE TRIGGER publications_no_truncate BEFORE TRUNCATE ON sealkit_ledger.publications FOR EACH STATEMENT EXECUTE FUNCTION sealkit_ledger.refuse_change();',
        );
        // The statement the hint gives is the one that restores the guard.
        await session.query((dropped ?? '').slice((dropped ?? '').indexOf('CREATE TRIGGER')));
        await session.query('SET session_replication_role = replica');
        expect(await hintOf()).toMatch(
          /^this session has session_replication_role = replica, which skips the append-only triggers: connect with it at origin/,
        );
        await session.query('SET session_replication_role = origin');
        expect(await codeOf(replayLedger(session))).toBe('accepted');
      });

      it('regression: refuses to publish to or read a ledger whose unique constraints were dropped, naming them', async () => {
        const v1 = await source('1.0.0');
        await publish([request(v1, 'genesis')]);
        const { session } = ledger.owner;
        // Without it two entries could take one position: the chain forks.
        await session.query(`ALTER TABLE ${LEDGER_TABLE} DROP CONSTRAINT publications_position_once`);
        const v11 = await source('1.1.0', { status: { nullable: false } });
        const refused = await publish([request(v11, v1.digest)]).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toMatchObject({
          code: 'contract_ledger_unprotected',
          hint: expect.stringContaining(
            'lacks the unique constraint publications_position_once (one entry per position), so nothing keeps that true. Restore it: ALTER TABLE sealkit_ledger.publications ADD CONSTRAINT publications_position_once UNIQUE (position);',
          ),
        });
        expect(await codeOf(replayLedger(session))).toBe('contract_ledger_unprotected');
        expect(await codeOf(readPublicationHistory(session, SOURCE))).toBe('contract_ledger_unprotected');
        // A partial index under the same name keeps no position unique: still refused.
        await session.query(
          `CREATE UNIQUE INDEX publications_position_once ON ${LEDGER_TABLE} (position) WHERE position < 0`,
        );
        expect(await codeOf(publish([request(v11, v1.digest)]))).toBe('contract_ledger_unprotected');
        await session.query('DROP INDEX sealkit_ledger.publications_position_once');
        await session.query(
          `ALTER TABLE ${LEDGER_TABLE} ADD CONSTRAINT publications_position_once UNIQUE (position)`,
        );
        expect(await codeOf(publish([request(v11, v1.digest)]))).toBe('accepted');
      });

      it('refuses a table of the same name that is not this ledger', async () => {
        const { session } = ledger.owner;
        await session.query('CREATE SCHEMA sealkit_ledger');
        await session.query(`CREATE TABLE ${LEDGER_TABLE} (position bigint PRIMARY KEY, note text)`);
        expect(await codeOf(publish([request(await source('1.0.0'), 'genesis')]))).toBe(
          'contract_ledger_schema_mismatch',
        );
      });

      it('says which format a ledger written by another sealkit version holds, and what to do', async () => {
        const v1 = await source('1.0.0');
        await publish([request(v1, 'genesis')]);
        await ledger.owner.session.query(`COMMENT ON TABLE ${LEDGER_TABLE} IS 'sealkit.contract-ledger/v1'`);
        for (const read of [
          () => publish([request(v1, 'genesis')]),
          () => readPublicationHistory(ledger.owner.session, SOURCE),
          () => replayLedger(ledger.owner.session),
        ]) {
          await expect(read()).rejects.toMatchObject({
            code: 'contract_ledger_schema_mismatch',
            hint: expect.stringMatching(/holds format v1.*reads and writes v2.*new ledger/),
          });
        }
      });
    });

    describe('replay and tampering', () => {
      /** Three entries: the source's genesis, an approved widening (position 2), a compatible change. */
      async function threeEntries(): Promise<void> {
        const v1 = await source('1.0.0');
        const v11 = await source('1.1.0', { amount: { type: 'decimal(14,2)' } });
        const v12 = await source('1.2.0', { amount: { type: 'decimal(14,2)' }, status: { nullable: false } });
        await publish([request(v1, 'genesis')]);
        await publish([request(v11, v1.digest, approvalOf(`${SOURCE}@1.1.0`))]);
        await publish([request(v12, v11.digest)]);
        expect((await replayLedger(ledger.owner.session)).entries).toBe(3);
      }

      const other = async () => (await source('1.1.0', { amount: { type: 'decimal(16,2)' } })).bytes;
      /** For every column, a plausible different value of the right type. */
      const TAMPERS: readonly (readonly [string, () => Promise<string | Uint8Array | null>])[] = [
        ['position', async () => '7'],
        ['previous_hash', async () => `sha256:${'0'.repeat(64)}`],
        ['entry_hash', async () => `sha256:${'1'.repeat(64)}`],
        ['profile', async () => 'leapview.contract/v2'],
        ['resource_kind', async () => 'Model'],
        ['resource_id', async () => 't.source.other'],
        ['version', async () => '1.1.1'],
        ['compatibility', async () => 'full'],
        ['digest', async () => `sha256:${'2'.repeat(64)}`],
        ['projection', other],
        ['baseline', async () => `sha256:${'3'.repeat(64)}`],
        ['verdict', async () => 'compatible'],
        ['security', async () => 'widened'],
        ['changes', async () => '[]'],
        ['checks', async () => '["digest"]'],
        ['affected', async () => '{"id":"t.dashboard.sales","kind":"Source"}'],
        ['approval', async () => null],
        ['resource_index', async () => `sha256:${'4'.repeat(64)}`],
        ['index_bucket', async () => String((indexBucketOf(SOURCE) + 1) % 256)],
        ['bucket_digest', async () => `sha256:${'5'.repeat(64)}`],
      ];

      for (const [column, value] of TAMPERS) {
        it(`detects a tampered ${column} at its position`, async () => {
          await threeEntries();
          const replacement = await value();
          const cast =
            { position: '::bigint', projection: '::bytea', index_bucket: '::smallint' }[column] ?? '';
          await ledger.tamper(async (session) => {
            await session.query(`UPDATE ${LEDGER_TABLE} SET ${column} = $1${cast} WHERE position = 2`, [
              replacement,
            ]);
          });
          const error = await replayLedger(ledger.owner.session).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(refuseLedger.is(error, 'contract_ledger_tampered')).toBe(true);
          if (refuseLedger.is(error, 'contract_ledger_tampered')) expect(error.details.position).toBe(2);
        });
      }

      it('detects a deleted entry at its position', async () => {
        await threeEntries();
        await ledger.tamper(async (session) => {
          await session.query(`DELETE FROM ${LEDGER_TABLE} WHERE position = 2`);
        });
        await expect(replayLedger(ledger.owner.session)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
          field: 'position',
        });
      });

      it('detects a rewritten verdict even when the tamperer recomputes the entry hash', async () => {
        await threeEntries();
        const [row] = await ledger.owner.session.query(`${SELECT_ENTRY} WHERE position = 2`);
        const { entryHashOf, entryOfRow } = await import('./entry.js');
        const entry = entryOfRow(row as Record<string, unknown>, 2);
        const forged = { ...entry, verdict: 'compatible' as const, approval: null };
        await ledger.tamper(async (session) => {
          await session.query(
            `UPDATE ${LEDGER_TABLE} SET verdict = 'compatible', approval = NULL, entry_hash = $1 WHERE position = 2`,
            [entryHashOf(forged)],
          );
        });
        // Its own hash now matches; the chain (position 3) or the re-run rules give it away.
        await expect(replayLedger(ledger.owner.session)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
        });
      });

      it('refuses tampered evidence when a publication or the history reads it', async () => {
        await threeEntries();
        await ledger.tamper(async (session) => {
          await session.query(`UPDATE ${LEDGER_TABLE} SET compatibility = 'none' WHERE position = 3`);
        });
        await expect(readPublicationHistory(ledger.owner.session, SOURCE)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 3 },
        });
        const v13 = await source('1.3.0', { amount: { type: 'decimal(14,2)' }, status: { nullable: false } });
        await expect(publish([request(v13, 'genesis')])).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 3 },
        });
      });

      it('regression: a head forged with its hashes recomputed but a version its bytes do not hold is refused by reads, not taken as the baseline', async () => {
        await threeEntries();
        const [row] = await ledger.owner.session.query(`${SELECT_ENTRY} WHERE position = 3`);
        const { entryHashOf, entryOfRow } = await import('./entry.js');
        const head = entryOfRow(row as Record<string, unknown>, 3);
        // Everything a read checks by hash is recomputed: the entry hash and its bucket's digest.
        const forgedHash = entryHashOf({ ...head, version: '9.0.0' });
        await ledger.tamper(async (session) => {
          await session.query(
            `UPDATE ${LEDGER_TABLE} SET version = '9.0.0', entry_hash = $1, bucket_digest = $2 WHERE position = 3`,
            [forgedHash, bucketDigestOf(new Map([[SOURCE, forgedHash]]))],
          );
        });
        const tamperedAt = { code: 'contract_ledger_tampered', details: { position: 3 }, field: 'version' };
        await expect(readPublicationHistory(ledger.owner.session, SOURCE)).rejects.toMatchObject(tamperedAt);
        // Before, this was refused version_not_increasing, against a 9.0.0 never published.
        const v13 = await source('1.3.0', { amount: { type: 'decimal(14,2)' }, status: { nullable: false } });
        await expect(publish([request(v13, head.digest)])).rejects.toMatchObject(tamperedAt);
        await expect(replayLedger(ledger.owner.session)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 3 },
        });
      });

      it('refuses a genesis for a resource whose only entry was deleted, and its empty history', async () => {
        const all = await candidatesOf({}, parser);
        // Positions 1 model, 2 semantic model, 3 source.
        await publish([...all.values()].map((candidate) => request(candidate, 'genesis')));
        await ledger.tamper(async (session) => {
          await session.query(`DELETE FROM ${LEDGER_TABLE} WHERE resource_id = $1`, [SEMANTIC]);
        });
        const again = all.get(SEMANTIC) as PublicationCandidate;
        await expect(publish([request(again, 'genesis')])).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
          field: 'position',
        });
        await expect(readPublicationHistory(ledger.owner.session, SEMANTIC)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
        });
        await expect(replayLedger(ledger.owner.session)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
        });
        expect(await rows()).toHaveLength(2);
      });

      /** Positions 1 and 2 the source (1.0.0, 1.1.0), 3 the model: the source's latest is below the head. */
      async function sourceTwiceThenModel() {
        const v1 = await source('1.0.0');
        const v11 = await source('1.1.0', { status: { nullable: false } });
        const model = (await candidatesOf({}, parser)).get(MODEL) as PublicationCandidate;
        await publish([request(v1, 'genesis')]);
        await publish([request(v11, v1.digest)]);
        await publish([request(model, 'genesis')]);
        return { v1 };
      }

      it('refuses a publication when a newer entry of the resource was deleted below the head', async () => {
        const { v1 } = await sourceTwiceThenModel();
        await ledger.tamper(async (session) => {
          await session.query(`DELETE FROM ${LEDGER_TABLE} WHERE position = 2`);
        });
        // The source's own history (position 1) looks complete; the chain to the head does not.
        const v12 = await source('1.2.0', { status: { nullable: false, critical_data_element: true } });
        await expect(publish([request(v12, v1.digest)])).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
          field: 'position',
        });
        await expect(readPublicationHistory(ledger.owner.session, SOURCE)).rejects.toMatchObject({
          details: { position: 2 },
        });
      });

      it('finds, on the chain walk, an entry renumbered into a gap without recomputing its hash', async () => {
        const all = await candidatesOf({}, parser);
        await publish([...all.values()].map((candidate) => request(candidate, 'genesis')));
        const [first] = await rows();
        await ledger.tamper(async (session) => {
          await session.query(`DELETE FROM ${LEDGER_TABLE} WHERE position = 2`);
          await session.query(
            `UPDATE ${LEDGER_TABLE} SET position = 2, previous_hash = $1 WHERE position = 3`,
            [String(first?.entry_hash)],
          );
        });
        // Positions and stored links look whole again; only the recomputed hash of position 2 does not.
        await expect(readPublicationHistory(ledger.owner.session, MODEL)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
          field: 'entry_hash',
        });
        const semantic = all.get(SEMANTIC) as PublicationCandidate;
        await expect(publish([request(semantic, 'genesis')])).rejects.toMatchObject({
          details: { position: 2 },
          field: 'entry_hash',
        });
      });

      const OUT_OF_CHAIN = [
        { where: 'linked to nothing', field: 'previous_hash', position: 4, linked: false },
        { where: 'after a gap', field: 'position', position: 9, linked: true },
        { where: 'at a position no ledger reaches', field: 'position', position: 10 ** 15, linked: true },
      ] as const;
      for (const { where, field, position, linked } of OUT_OF_CHAIN) {
        it(`refuses a head appended out of the chain (${where}), its hashes and index recomputed`, async () => {
          const all = await candidatesOf({}, parser);
          // Positions 1 model, 2 semantic model, 3 source.
          await publish([...all.values()].map((candidate) => request(candidate, 'genesis')));
          const v11 = await source('1.1.0', { status: { nullable: false } });
          const state = await ledger.owner.transaction((session) => readLedgerState(session, [SOURCE]));
          const planned = planPublication(state, [
            request(v11, (all.get(SOURCE) as PublicationCandidate).digest),
          ]).items[0]?.entry as LedgerEntry;
          // Self-consistent (its hash, index root and bucket digest agree), but not on the chain.
          const { entryHash: _hash, bucketDigest: _bucket, ...content } = planned;
          const forged = linked
            ? { ...content, position }
            : { ...content, previousHash: `sha256:${'1'.repeat(64)}` as Sha256Prefixed };
          const entryHash = entryModule.entryHashOf(forged);
          const bucketDigest = new IndexBuilder(state.index).commit(SOURCE, entryHash);
          await ledger.owner.session.query(
            entryModule.INSERT_ENTRY,
            entryModule.entryParams({ ...forged, entryHash, bucketDigest }),
          );
          const v12 = await source('1.2.0', { status: { nullable: false, critical_data_element: true } });
          for (const read of [
            () => readPublicationHistory(ledger.owner.session, MODEL),
            () => publish([request(v12, v11.digest)]),
            () => replayLedger(ledger.owner.session),
          ]) {
            await expect(read()).rejects.toMatchObject({
              code: 'contract_ledger_tampered',
              details: { position: 4 },
              field,
            });
          }
          expect(await rows()).toHaveLength(4);
        });
      }

      it('names resource_id, not the derived bucket, when an entry was relabelled', async () => {
        await threeEntries();
        await ledger.tamper(async (session) => {
          await session.query(`UPDATE ${LEDGER_TABLE} SET resource_id = 't.source.other' WHERE position = 2`);
        });
        await expect(replayLedger(ledger.owner.session)).rejects.toMatchObject({
          details: { position: 2 },
          field: 'entry_hash',
        });
      });

      it('names a changed bucket digest below the head, which no entry hash covers, when a read finds it', async () => {
        await threeEntries();
        await ledger.tamper(async (session) => {
          await session.query(`UPDATE ${LEDGER_TABLE} SET bucket_digest = $1 WHERE position = 2`, [
            `sha256:${'6'.repeat(64)}`,
          ]);
        });
        // The head's resource index no longer matches the bucket digests before it; the chain is
        // whole, so the index rebuilt from position 1 names the entry whose stored digest changed.
        const v13 = await source('1.3.0', { amount: { type: 'decimal(14,2)' }, status: { nullable: false } });
        const v12 = (await rows())[2]?.digest as PublicationRequest['baseline'];
        for (const read of [
          () => publish([request(v13, v12)]),
          () => readPublicationHistory(ledger.owner.session, SOURCE),
          () => replayLedger(ledger.owner.session),
        ]) {
          await expect(read()).rejects.toMatchObject({
            code: 'contract_ledger_tampered',
            details: { position: 2 },
            field: 'bucket_digest',
          });
        }
      });

      it('refuses a resource whose latest entry was moved out of its index bucket', async () => {
        await sourceTwiceThenModel();
        await ledger.tamper(async (session) => {
          await session.query(`UPDATE ${LEDGER_TABLE} SET index_bucket = $1::smallint WHERE position = 2`, [
            String((indexBucketOf(SOURCE) + 1) % 256),
          ]);
        });
        await expect(readPublicationHistory(ledger.owner.session, SOURCE)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
          field: 'index_bucket',
        });
      });

      /** Positions 1 model, 2 semantic model, 3 source; then the checks of `position` rewritten. */
      async function genesesWithChecksTamperedAt(position: number) {
        const all = await candidatesOf({}, parser);
        await publish([...all.values()].map((candidate) => request(candidate, 'genesis')));
        await ledger.tamper(async (session) => {
          await session.query(
            `UPDATE ${LEDGER_TABLE} SET checks = '["digest"]' WHERE position = $1::bigint`,
            [String(position)],
          );
        });
        return all;
      }

      it("reads rely on the head, the index and the resources read: another tampered entry is replay's to find", async () => {
        const all = await genesesWithChecksTamperedAt(2);
        const v11 = await source('1.1.0', { status: { nullable: false } });
        const source10 = all.get(SOURCE) as PublicationCandidate;
        const applied = await ledger.owner.transaction(async (session) => {
          const plan = planPublication(await readLedgerState(session, [SOURCE]), [
            request(v11, source10.digest),
          ]);
          return applyPublicationPlan(session, plan);
        });
        expect(applied.head?.position).toBe(4);
        expect(
          (await readPublicationHistory(ledger.owner.session, MODEL)).map((entry) => entry.position),
        ).toEqual([1]);
        await expect(replayLedger(ledger.owner.session)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 2 },
          field: 'entry_hash',
        });
      });

      it('regression: the resources a run says it does not publish are verified too, not taken on trust', async () => {
        const all = await genesesWithChecksTamperedAt(2);
        const only = [{ id: SOURCE, ...(all.get(SOURCE) as PublicationCandidate) }];
        // Without the absent resources the run relies on position 2 for nothing.
        expect(
          (await runContractPublication(ledger.owner, only, { approval: null, dryRun: true })).plan.items[0]
            ?.status,
        ).toBe('unchanged');
        await expect(
          runContractPublication(ledger.owner, only, { approval: null, dryRun: true, absent: true }),
        ).rejects.toMatchObject({ code: 'contract_ledger_tampered', details: { position: 2 } });
      });

      it('verifies the head on every read: a tampered head of another resource is found', async () => {
        await genesesWithChecksTamperedAt(3);
        // The model (position 1) is read and verified; the head (position 3) is read for its index.
        await expect(readPublicationHistory(ledger.owner.session, MODEL)).rejects.toMatchObject({
          code: 'contract_ledger_tampered',
          details: { position: 3 },
          field: 'entry_hash',
        });
      });

      it('refuses to replay a ledger that does not exist', async () => {
        expect(await codeOf(replayLedger(ledger.owner.session))).toBe('contract_ledger_missing');
      });
    });
  });
}
