import { canonicalize } from '../../core/json/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import { decidePublication, type EntryContent } from './decide.js';
import {
  BY_POSITION,
  checkIndexBucket,
  entryHashOf,
  entryOfRow,
  type LedgerEntry,
  SELECT_ENTRY,
} from './entry.js';
import { guardLedger } from './guard.js';
import { refuseLedger, tampered } from './refusals.js';
import { emptyResourceIndex, IndexBuilder, verifyIndexedEntry } from './resource-index.js';
import { inspectLedger, requireGuardedLedger, schemaMismatch } from './schema.js';
import type { LedgerSession } from './session.js';
import type { LedgerHead } from './state.js';

export interface LedgerReplay {
  readonly entries: number;
  readonly resources: number;
  /** Compare it with a head recorded elsewhere to detect a rewrite of the whole chain from some point on. */
  readonly head: LedgerHead | null;
}

/** Rows read per statement: replay never holds the whole ledger in one result. */
const PAGE = 500;

/** Stored columns a recomputed publication is compared with, in reporting order. */
const RECOMPUTED: readonly (readonly [keyof EntryContent, string])[] = [
  ['profile', 'profile'],
  ['resource', 'resource_id'],
  ['version', 'version'],
  ['compatibility', 'compatibility'],
  ['verdict', 'verdict'],
  ['security', 'security'],
  ['changes', 'changes'],
  ['checks', 'checks'],
  ['affected', 'affected'],
  ['approval', 'approval'],
];

/** The column a refused re-decision points at. */
function columnOf(refusal: Refusal): string {
  if (refusal.field === 'baseline' || refusal.field === 'version') return refusal.field;
  if (refusal.field?.startsWith('approval') === true) return 'approval';
  if (refusal.field === 'resource') return 'resource_kind';
  return 'projection';
}

/**
 * Re-reads the whole ledger in position order and re-validates everything:
 * positions contiguous from 1, every column in its exact stored form, the
 * hash chain (each previous hash, each entry hash), the resource index (each
 * entry's root before it, its bucket digest after it), the bytes against their
 * digest and the publication decoder, each baseline against the resource's
 * previous publication, and the publication rules re-run — recomputed
 * classification, checks, security result, version rules and approvals —
 * against what is stored. The first entry that fails is reported with its
 * position and column. Finally the table must still be protected.
 */
export async function replayLedger(session: LedgerSession): Promise<LedgerReplay> {
  return guardLedger(async () => {
    const inspection = await inspectLedger(session);
    if (!inspection.present) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
    if (!inspection.isLedger) throw schemaMismatch(inspection);
    const byResource = new Map<string, LedgerEntry[]>();
    const index = new IndexBuilder(emptyResourceIndex([]));
    let previous: LedgerEntry | null = null;
    for (;;) {
      const after = previous?.position ?? 0;
      const rows = await session.query(
        `${SELECT_ENTRY} WHERE position > $1::bigint ORDER BY ${BY_POSITION} LIMIT ${PAGE}`,
        [String(after)],
      );
      for (const row of rows) {
        const entry = entryOfRow(row, (previous?.position ?? 0) + 1);
        verifyEntry(entry, previous, byResource);
        checkIndexBucket(row, entry);
        verifyIndexedEntry(index, { ...entry, resourceId: entry.resource.id });
        const list = byResource.get(entry.resource.id) ?? [];
        list.push(entry);
        byResource.set(entry.resource.id, list);
        previous = entry;
      }
      if (rows.length < PAGE) break;
    }
    // Protection is judged after the evidence: a tamper is reported with its position first.
    requireGuardedLedger(inspection);
    const last = previous as LedgerEntry | null;
    return {
      entries: last?.position ?? 0,
      resources: byResource.size,
      head: last === null ? null : { position: last.position, entryHash: last.entryHash },
    };
  });
}

function verifyEntry(
  entry: LedgerEntry,
  previous: LedgerEntry | null,
  byResource: ReadonlyMap<string, readonly LedgerEntry[]>,
): void {
  const at = (column: string) => tampered(entry.position, column);
  if (entry.previousHash !== (previous?.entryHash ?? 'genesis')) throw at('previous_hash');
  if (entryHashOf(entry) !== entry.entryHash) throw at('entry_hash');
  // The re-decision decodes the bytes against their digest: a failure there is the projection column.
  const decision = decidePublication((id) => byResource.get(id) ?? [], {
    candidate: { bytes: entry.projection, digest: entry.digest },
    baseline: entry.baseline,
    approval: entry.approval,
  });
  if (decision.status === 'refused') throw at(columnOf(decision.refusal));
  if (decision.status === 'unchanged') throw at('digest');
  if (decision.resource.kind !== entry.resource.kind) throw at('resource_kind');
  for (const [key, column] of RECOMPUTED) {
    if (canonicalize(decision.content[key]) !== canonicalize(entry[key])) throw at(column);
  }
}
