import { isSha256Prefixed, type Sha256Prefixed } from '../../core/digest/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { compareCodeUnits } from '../authoring/text.js';
import { decodeProjection } from '../canonical/decode.js';
import type { ProjectionView } from '../projection/sealed.js';
import { verifyChainToHead } from './chain.js';
import { BY_POSITION, type LedgerEntry, SELECT_ENTRY, verifiedEntryOfRow } from './entry.js';
import { verifyIndexFromStart } from './index-walk.js';
import { refuseLedger, tampered } from './refusals.js';
import {
  bucketDigestOf,
  EMPTY_BUCKET_DIGEST,
  emptyResourceIndex,
  INDEX_BUCKETS,
  IndexBuilder,
  indexBucketOf,
  indexRootOf,
  type ResourceIndex,
} from './resource-index.js';
import { inspectLedger, LEDGER_TABLE, requireUsableLedger } from './schema.js';
import type { LedgerRow, LedgerSession } from './session.js';

export interface LedgerHead {
  readonly position: number;
  readonly entryHash: Sha256Prefixed;
}

/** What a publication plan is computed against: the chain head and the entries of the resources concerned. */
export interface LedgerState {
  readonly head: LedgerHead | null;
  /** Every resource id read → its verified entries in position order (empty: never published). */
  readonly resources: ReadonlyMap<string, readonly LedgerEntry[]>;
  /** The resource index after the head, with the buckets of the resources read. */
  readonly index: ResourceIndex;
}

/** The state of a ledger that does not exist yet, for `ids` (a dry run that must create nothing). */
export function emptyLedgerState(ids: readonly string[]): LedgerState {
  return Object.freeze({
    head: null,
    resources: new Map(ids.map((id) => [id, []])),
    index: emptyResourceIndex(ids),
  });
}

const positionOf = (row: LedgerRow): number => {
  const text = row.position;
  return typeof text === 'string' && /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : 0;
};

/**
 * Verifies the entries of one resource as read: each entry's hash and digest,
 * the baselines linking them (genesis first, then each previous digest), and
 * that the latest one decodes (it is the baseline of the next publication).
 */
export function verifyResourceEntries(rows: readonly LedgerRow[]): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const row of rows) {
    const entry = verifiedEntryOfRow(row, positionOf(row));
    const previous = entries[entries.length - 1];
    if (entry.baseline !== (previous === undefined ? 'genesis' : previous.digest)) {
      throw tampered(entry.position, 'baseline');
    }
    entries.push(entry);
  }
  const latest = entries[entries.length - 1];
  if (latest !== undefined) {
    let view: ProjectionView;
    try {
      view = decodeProjection(latest.projection, latest.digest);
    } catch (error: unknown) {
      if (error instanceof Refusal) throw tampered(latest.position, 'projection');
      throw error;
    }
    const column = identityMismatch(latest, view);
    if (column !== undefined) throw tampered(latest.position, column);
  }
  return entries;
}

/**
 * The first identity column of an entry that says something else than its
 * own bytes, if any. Every column is covered by the entry hash, but anyone
 * able to write the table can recompute that hash (and the index digests):
 * a head whose `version` was raised while its bytes kept the old version
 * would otherwise be taken as the baseline, and the next publication
 * refused as `version_not_increasing` against a version never published.
 * Replay re-runs every rule; a read checks what the next publication
 * compares with.
 */
function identityMismatch(entry: LedgerEntry, view: ProjectionView): string | undefined {
  if (entry.resource.kind !== view.resource.kind) return 'resource_kind';
  if (entry.resource.id !== view.resource.id) return 'resource_id';
  if (entry.version !== view.contract.version) return 'version';
  if (entry.compatibility !== view.contract.compatibility) return 'compatibility';
  return undefined;
}

/**
 * Reads (and verifies) what a publication of `ids` depends on. A ledger that
 * does not exist yet reads as empty; a table that is not this ledger, or an
 * unprotected one, is refused. Run it in the same transaction as the append,
 * after `lockLedger`, so that nothing changes in between.
 */
export async function readLedgerState(
  session: LedgerSession,
  ids: readonly string[],
  options: LedgerReadOptions = {},
): Promise<LedgerState> {
  const inspection = await inspectLedger(session);
  if (!inspection.present) return emptyLedgerState(ids);
  requireUsableLedger(inspection);
  return readInspectedLedgerState(session, ids, options);
}

export interface LedgerReadOptions {
  /**
   * Read every bucket of the resource index at the head, not only those of
   * the ids: `index.buckets` then names every resource the ledger holds with
   * its latest entry hash, verified against the head (see `absentResources`).
   * The members are one more scan of the table's index columns.
   */
  readonly allBuckets?: boolean;
}

/**
 * @internal The read of `readLedgerState` for a caller that has just
 * inspected the ledger in the same transaction: one statement for the
 * resources' entries, the chain head (the row with the highest position) and
 * the entry before it, which the head must link to; then the resource index at the head (`readResourceIndex`), which says what
 * each resource's latest entry is — so that an entry removed or relabelled
 * anywhere, or a whole resource removed, is found without walking the chain.
 */
export async function readInspectedLedgerState(
  session: LedgerSession,
  ids: readonly string[],
  options: LedgerReadOptions = {},
): Promise<LedgerState> {
  const wanted = [...new Set(ids)];
  // A bounded range: `>= max - 1` alone was planned as a whole-table scan on PostgreSQL 15.
  const rows = await session.query(
    `${SELECT_ENTRY}
      WHERE resource_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
         OR ${BY_POSITION} BETWEEN (SELECT max(position) - 1 FROM ${LEDGER_TABLE})
                               AND (SELECT max(position) FROM ${LEDGER_TABLE})
      ORDER BY ${BY_POSITION}`,
    [JSON.stringify(wanted)],
  );
  const headRow = rows[rows.length - 1];
  if (headRow === undefined) {
    return Object.freeze({
      head: null,
      resources: emptyResources(wanted),
      index: emptyResourceIndex(wanted),
    });
  }
  // A head whose position is not one sealkit writes is out of the chain: the walk names where.
  if (positionOf(headRow) === 0) throw await diagnosed(session, 1, 'position');
  const head = verifiedEntryOfRow(headRow, positionOf(headRow));
  await verifyHeadLink(session, head, rows[rows.length - 2]);
  const requested = new Set(wanted);
  const byId = new Map<string, LedgerRow[]>(wanted.map((id) => [id, []]));
  for (const row of rows) {
    const id = String(row.resource_id);
    if (requested.has(id)) byId.get(id)?.push(row);
  }
  const resources = new Map<string, readonly LedgerEntry[]>();
  for (const [id, list] of byId) resources.set(id, verifyResourceEntries(list));
  const index = await readResourceIndex(session, head, wanted, options.allBuckets === true);
  // Each resource's own entries prove themselves complete from its genesis (baseline links); the
  // index at the head says which entry is its latest, so none after it was removed.
  for (const [id, list] of resources) {
    if (list[list.length - 1]?.entryHash !== index.buckets.get(indexBucketOf(id))?.get(id)) {
      throw await diagnosed(session, head.position, 'resource_index');
    }
  }
  return Object.freeze({ head: { position: head.position, entryHash: head.entryHash }, resources, index });
}

const emptyResources = (ids: readonly string[]) =>
  new Map<string, readonly LedgerEntry[]>(ids.map((id) => [id, []]));

/**
 * The head must chain onto the entry before it: that entry exists at the
 * position before and its stored hash is the head's previous hash (position
 * 1: `genesis`). A read chains the next publication onto the head, so a head
 * appended out of the chain — a gap, or a link to nothing — is tampered
 * evidence, named where it is by the walk.
 */
async function verifyHeadLink(
  session: LedgerSession,
  head: LedgerEntry,
  before: LedgerRow | undefined,
): Promise<void> {
  if (head.position === 1) {
    if (head.previousHash !== 'genesis') throw tampered(1, 'previous_hash');
    return;
  }
  const adjacent = before !== undefined && positionOf(before) === head.position - 1;
  if (!adjacent || before.entry_hash !== head.previousHash) {
    throw await diagnosed(session, head.position, adjacent ? 'previous_hash' : 'position');
  }
}

/**
 * One statement for what the index at the head is checked with, before the
 * head ($1): per bucket its latest entry's stored digest (one index probe
 * per bucket), and the members of the buckets in $2 — each resource's latest
 * entry hash. `= ANY (ARRAY(…))`, not `IN (SELECT …)`: only the former lets
 * the planner use the bucket index (a whole-table scan otherwise).
 */
const INDEX_AT_HEAD = `SELECT 'digest' AS part, bucket.n::text AS bucket, last.position::text AS position,
    last.bucket_digest AS value, NULL::text AS resource_id
  FROM generate_series(0, ${INDEX_BUCKETS - 1}) AS bucket(n)
  LEFT JOIN LATERAL (
    SELECT position, bucket_digest FROM ${LEDGER_TABLE}
     WHERE index_bucket = bucket.n AND position < $1::bigint
     ORDER BY position DESC LIMIT 1
  ) AS last ON true
UNION ALL
SELECT * FROM (
  SELECT DISTINCT ON (resource_id) 'member', index_bucket::text, NULL::text, entry_hash, resource_id
    FROM ${LEDGER_TABLE}
   WHERE index_bucket = ANY (ARRAY(SELECT (jsonb_array_elements_text($2::jsonb))::smallint))
     AND position < $1::bigint
   ORDER BY resource_id, position DESC
) AS members`;

/**
 * Reads and verifies the resource index at `head` (an entry verified by its
 * hash) for the buckets of `ids` and of the head's resource: the bucket
 * digests before the head must give the head's `resource_index`, the members
 * read must give their bucket's digest, and the head applied to its bucket
 * must give the head's stored `bucket_digest`. Returns the index after the
 * head. One statement whatever the ledger's length.
 */
export async function readResourceIndex(
  session: LedgerSession,
  head: LedgerEntry,
  ids: readonly string[],
  allBuckets = false,
): Promise<ResourceIndex> {
  const wanted = allBuckets
    ? Array.from({ length: INDEX_BUCKETS }, (_, bucket) => bucket)
    : [...new Set([...ids, head.resource.id].map(indexBucketOf))];
  const rows = await session.query(INDEX_AT_HEAD, [String(head.position), JSON.stringify(wanted)]);
  const digests = new Array<Sha256Prefixed | undefined>(INDEX_BUCKETS);
  const heldAt = new Array<number>(INDEX_BUCKETS).fill(head.position);
  const buckets = new Map<number, Map<string, Sha256Prefixed>>(wanted.map((bucket) => [bucket, new Map()]));
  for (const row of rows) {
    const bucket = Number(row.bucket);
    if (row.part === 'member') {
      const members = buckets.get(bucket);
      const id = row.resource_id;
      const hash = row.value;
      // A malformed member cannot be part of a digest this ledger wrote: the bucket check fails.
      if (
        members !== undefined &&
        typeof id === 'string' &&
        typeof hash === 'string' &&
        isSha256Prefixed(hash)
      )
        members.set(id, hash);
      continue;
    }
    if (row.position !== null) heldAt[bucket] = positionOf(row);
    const digest = row.value === null ? EMPTY_BUCKET_DIGEST : row.value;
    if (typeof digest !== 'string' || !isSha256Prefixed(digest)) {
      throw await diagnosed(session, heldAt[bucket] ?? head.position, 'bucket_digest');
    }
    digests[bucket] = digest;
  }
  const complete = digests.filter((digest): digest is Sha256Prefixed => digest !== undefined);
  if (complete.length !== INDEX_BUCKETS || indexRootOf(complete) !== head.resourceIndex) {
    throw await diagnosed(session, head.position, 'resource_index');
  }
  for (const [bucket, members] of buckets) {
    if (bucketDigestOf(members) !== complete[bucket]) {
      throw await diagnosed(session, heldAt[bucket] ?? head.position, 'bucket_digest');
    }
  }
  const builder = new IndexBuilder({ digests: complete, buckets });
  if (builder.commit(head.resource.id, head.entryHash) !== head.bucketDigest) {
    throw await diagnosed(session, head.position, 'bucket_digest');
  }
  return builder.snapshot();
}

/**
 * The refusal for a fault the index found, named where it is: the chain
 * walked from position 1 finds the first broken entry when there is one (a
 * removed, renumbered or rewritten entry); otherwise the index rebuilt from
 * position 1 finds the first entry whose stored index columns were changed.
 * Runs only on tampered evidence, so its cost is not a publication's.
 */
async function diagnosed(session: LedgerSession, position: number, field: string): Promise<Error> {
  try {
    await verifyChainToHead(session, null);
    await verifyIndexFromStart(session);
  } catch (error: unknown) {
    if (refuseLedger.is(error, 'contract_ledger_tampered')) return error;
    throw error;
  }
  return tampered(position, field);
}

/**
 * The latest entries of the resources the ledger holds besides `ids`, by
 * resource id: what a publication of a whole project does not publish
 * because the project no longer has them (deleted, renamed, unversioned).
 * `state` must have been read with `allBuckets`, so its index names every
 * resource, verified against the head; each entry read must be the one the
 * index names, and its hash must cover its columns, so its id, kind and
 * version are evidence. One statement, for those entries only.
 */
export async function absentResources(
  session: LedgerSession,
  state: LedgerState,
  ids: readonly string[],
): Promise<LedgerEntry[]> {
  if (state.head === null) return [];
  if (state.index.buckets.size !== INDEX_BUCKETS) {
    throw new Error('absentResources needs a ledger state read with allBuckets');
  }
  const present = new Set(ids);
  const latest = new Map<string, Sha256Prefixed>();
  for (const members of state.index.buckets.values()) {
    for (const [id, hash] of members) if (!present.has(id)) latest.set(id, hash);
  }
  if (latest.size === 0) return [];
  const rows = await session.query(
    `${SELECT_ENTRY} WHERE entry_hash = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) ORDER BY ${BY_POSITION}`,
    [JSON.stringify([...latest.values()])],
  );
  const entries = rows.map((row) => verifiedEntryOfRow(row, positionOf(row)));
  const found = new Map(entries.map((entry) => [entry.resource.id, entry]));
  for (const [id, hash] of latest) {
    const entry = found.get(id);
    // The index at the head names this entry: missing or relabelled, it was changed since.
    if (entry?.entryHash !== hash) throw await diagnosed(session, state.head.position, 'resource_index');
  }
  return [...latest.keys()]
    .sort(compareCodeUnits)
    .map((id) => found.get(id))
    .filter((entry): entry is LedgerEntry => entry !== undefined);
}

/** The baseline a new publication of `id` must name: the latest digest, or genesis. */
export function latestBaseline(state: LedgerState, id: string): Sha256Prefixed | 'genesis' {
  const entries = state.resources.get(id);
  return entries?.[entries.length - 1]?.digest ?? 'genesis';
}
