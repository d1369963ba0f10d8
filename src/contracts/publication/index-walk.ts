import { isSha256Prefixed } from '../../core/digest/index.js';
import { BY_POSITION } from './entry.js';
import { tampered } from './refusals.js';
import { emptyResourceIndex, IndexBuilder, indexBucketOf, verifyIndexedEntry } from './resource-index.js';
import { LEDGER_TABLE } from './schema.js';
import type { LedgerSession } from './session.js';

/** Rows per statement: the walk never holds the whole ledger in one result. */
const PAGE = 5000;

const SELECT_INDEX_COLUMNS = `SELECT position::text AS position, resource_id, entry_hash, resource_index,
    index_bucket::text AS index_bucket, bucket_digest
  FROM ${LEDGER_TABLE} WHERE position > $1::bigint ORDER BY ${BY_POSITION} LIMIT ${PAGE}`;

/**
 * Rebuilds the resource index from position 1 and refuses the first entry
 * whose stored index columns it does not reproduce. Run after the chain walk
 * found the hash chain intact (positions contiguous, every entry hash its
 * columns'): what is left to be wrong is the index itself. Only a read that
 * found the index at the head inconsistent runs it, to name the entry.
 */
export async function verifyIndexFromStart(session: LedgerSession): Promise<void> {
  const index = new IndexBuilder(emptyResourceIndex([]));
  let position = 0;
  for (;;) {
    const rows = await session.query(SELECT_INDEX_COLUMNS, [String(position)]);
    for (const row of rows) {
      position += 1;
      const resourceId = String(row.resource_id);
      const entryHash = String(row.entry_hash);
      if (!isSha256Prefixed(entryHash)) throw tampered(position, 'entry_hash');
      if (row.index_bucket !== String(indexBucketOf(resourceId))) throw tampered(position, 'index_bucket');
      verifyIndexedEntry(index, {
        position,
        resourceId,
        entryHash,
        resourceIndex: String(row.resource_index),
        bucketDigest: String(row.bucket_digest),
      });
    }
    if (rows.length < PAGE) return;
  }
}
