import type { Sha256Prefixed } from '../../core/digest/index.js';
import { compareCodeUnits } from '../authoring/text.js';
import type { ContractClassification } from '../version/classify.js';
import { type Decision, decidePublication, type PublicationRequest } from './decide.js';
import { entryHashOf, type LedgerEntry, type ResourceIdentity } from './entry.js';
import { type PublicationRefusal, refuseLedger } from './refusals.js';
import { IndexBuilder } from './resource-index.js';
import type { LedgerHead, LedgerState } from './state.js';

export const PLAN_FORMAT = 'sealkit.contract-publication-plan/v1';

export type PlanItemStatus = 'append' | 'unchanged' | 'refused';

export interface PlanItem {
  readonly status: PlanItemStatus;
  /** Null only when the candidate bytes did not decode. */
  readonly resource: ResourceIdentity | null;
  readonly version: string | null;
  readonly digest: Sha256Prefixed;
  readonly baseline: Sha256Prefixed | 'genesis';
  readonly classification: ContractClassification | null;
  /** `append`: the exact entry apply inserts (position, chain and hash included); `unchanged`: the stored entry. */
  readonly entry: LedgerEntry | null;
  readonly refusal: PublicationRefusal | null;
}

/**
 * A publication plan: pure data computed from a ledger state and requests,
 * with no I/O. Apply inserts exactly these entries — or refuses when the
 * ledger moved on — so `--dry-run` shows the very entries (and hashes) a real
 * run writes.
 */
export interface PublicationPlan {
  readonly format: typeof PLAN_FORMAT;
  /** The head the entries chain onto (null: an empty ledger). */
  readonly head: LedgerHead | null;
  /** Sorted by resource id; undecodable candidates last, by digest. */
  readonly items: readonly PlanItem[];
  readonly appends: number;
  readonly refused: number;
}

function sortKey(decision: Decision, request: PublicationRequest): [number, string, string] {
  return decision.resource === null
    ? [1, request.candidate.digest, '']
    : [0, decision.resource.id, request.candidate.digest];
}

/**
 * Plans `requests` against `state`: pure, no I/O, and it never throws for a
 * request — a request the rules refuse, one for a resource the state was not
 * read for (`contract_ledger_state_incomplete`) and every request of a
 * resource named twice (`contract_ledger_request_duplicate`) are refused
 * items. `applyPublicationPlan` accepts only the plan this function makes
 * for the ledger state it finds.
 */
export function planPublication(
  state: LedgerState,
  requests: readonly PublicationRequest[],
): PublicationPlan {
  const decided = refuseDuplicates(
    requests.map((request) => ({
      request,
      decision: decidePublication((id) => state.resources.get(id), request),
    })),
  );
  decided.sort((a, b) => {
    const [ra, ka, da] = sortKey(a.decision, a.request);
    const [rb, kb, db] = sortKey(b.decision, b.request);
    return ra - rb || compareCodeUnits(ka, kb) || compareCodeUnits(da, db);
  });
  const items = chained(state, decided);
  return Object.freeze({
    format: PLAN_FORMAT,
    head: state.head,
    items,
    appends: items.filter((item) => item.status === 'append').length,
    refused: items.filter((item) => item.status === 'refused').length,
  });
}

interface Decided {
  readonly request: PublicationRequest;
  readonly decision: Decision;
}

/** Every request of a resource named more than once is refused, whatever the rules decided for it. */
function refuseDuplicates(decided: readonly Decided[]): Decided[] {
  const named = new Map<string, number>();
  for (const { decision } of decided) {
    if (decision.resource !== null)
      named.set(decision.resource.id, (named.get(decision.resource.id) ?? 0) + 1);
  }
  return decided.map((item) => {
    const { resource, version } = item.decision;
    if (resource === null || (named.get(resource.id) ?? 0) <= 1) return item;
    const refusal = refuseLedger('contract_ledger_request_duplicate', {
      role: 'publication',
      field: 'resource',
    });
    return {
      request: item.request,
      decision: { status: 'refused', resource, version, refusal, classification: null },
    };
  });
}

/** The plan's items in order: each append takes the next position and chains on the one before. */
function chained(state: LedgerState, decided: readonly Decided[]): PlanItem[] {
  let position = state.head?.position ?? 0;
  let previousHash: Sha256Prefixed | 'genesis' = state.head?.entryHash ?? 'genesis';
  const index = new IndexBuilder(state.index);
  return decided.map(({ request, decision }): PlanItem => {
    const common = { digest: request.candidate.digest, baseline: request.baseline };
    if (decision.status === 'refused') {
      return {
        ...common,
        status: 'refused',
        resource: decision.resource,
        version: decision.version,
        classification: decision.classification,
        entry: null,
        refusal: decision.refusal,
      };
    }
    if (decision.status === 'unchanged') {
      return {
        ...common,
        status: 'unchanged',
        resource: decision.resource,
        version: decision.version,
        classification: null,
        entry: decision.entry,
        refusal: null,
      };
    }
    position += 1;
    const unhashed = { ...decision.content, position, previousHash, resourceIndex: index.root() };
    const entryHash = entryHashOf(unhashed);
    const bucketDigest = index.commit(unhashed.resource.id, entryHash);
    const entry: LedgerEntry = Object.freeze({ ...unhashed, entryHash, bucketDigest });
    previousHash = entry.entryHash;
    return {
      ...common,
      status: 'append',
      resource: decision.resource,
      version: decision.version,
      classification: decision.classification,
      entry,
      refusal: null,
    };
  });
}
