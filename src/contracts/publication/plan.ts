import type { Sha256Prefixed } from '../../core/digest/index.js';
import { compareCodeUnits } from '../authoring/text.js';
import type { ContractClassification } from '../version/classify.js';
import { type Decision, decidePublication, type PublicationRequest } from './decide.js';
import { entryHashOf, type LedgerEntry, type ResourceIdentity } from './entry.js';
import { type PublicationRefusal, refuseLedger } from './refusals.js';
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

function sortKey(decision: Decision, request: PublicationRequest): [number, string] {
  return decision.resource === null ? [1, request.candidate.digest] : [0, decision.resource.id];
}

export function planPublication(
  state: LedgerState,
  requests: readonly PublicationRequest[],
): PublicationPlan {
  const entriesOf = (id: string) => {
    const entries = state.resources.get(id);
    if (entries === undefined)
      throw refuseLedger('contract_ledger_state_incomplete', { role: 'publication' });
    return entries;
  };
  const decided = requests.map((request) => ({ request, decision: decidePublication(entriesOf, request) }));
  const seen = new Set<string>();
  for (const { decision } of decided) {
    if (decision.resource === null) continue;
    if (seen.has(decision.resource.id))
      throw refuseLedger('contract_ledger_request_duplicate', { role: 'publication' });
    seen.add(decision.resource.id);
  }
  decided.sort((a, b) => {
    const [ra, ka] = sortKey(a.decision, a.request);
    const [rb, kb] = sortKey(b.decision, b.request);
    return ra - rb || compareCodeUnits(ka, kb);
  });

  let position = state.head?.position ?? 0;
  let previousHash: Sha256Prefixed | 'genesis' = state.head?.entryHash ?? 'genesis';
  const items = decided.map(({ request, decision }): PlanItem => {
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
    const unhashed = { ...decision.content, position, previousHash };
    const entry: LedgerEntry = Object.freeze({ ...unhashed, entryHash: entryHashOf(unhashed) });
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
  return Object.freeze({
    format: PLAN_FORMAT,
    head: state.head,
    items,
    appends: items.filter((item) => item.status === 'append').length,
    refused: items.filter((item) => item.status === 'refused').length,
  });
}
