import { PROFILE } from '../projection/payload.js';
import { BY_POSITION, type LedgerEntry } from './entry.js';
import { tampered } from './refusals.js';
import { LEDGER_FORMAT, LEDGER_TABLE } from './schema.js';
import type { LedgerSession } from './session.js';

const DIGEST = `'^sha256:[0-9a-f]{64}$'`;
const DIGEST_OR_GENESIS = `'^(genesis|sha256:[0-9a-f]{64})$'`;
const RESOURCE_ID = `'^[a-z][a-z0-9_-]*([.][a-z][a-z0-9_-]*){0,7}$'`;
const VERSION = `'^(0|[1-9][0-9]{0,9})[.](0|[1-9][0-9]{0,9})[.](0|[1-9][0-9]{0,9})$'`;
const list = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * The RFC 8785 entry document (`entryHashDocument`) built from the stored
 * columns in SQL. The string columns may hold neither `"` nor `\\` (the
 * walk refuses them), so their bytes are their JSON strings and cannot
 * spill into a neighbour; the JSON columns are stored as their RFC 8785 text
 * and embedded as they are, and the two JSON columns that sit next to each
 * other in the document may not hold the key that follows them
 * (`affected`|`approval`, `changes`|`checks`). So only the columns as
 * written reproduce the hashed bytes.
 */
const DOCUMENT = `'{"affected":' || affected || ',"approval":' || coalesce(approval, 'null')
  || ',"baseline":"' || baseline || '","changes":' || changes || ',"checks":' || checks
  || ',"compatibility":"' || compatibility || '","digest":"' || digest
  || '","format":"${LEDGER_FORMAT}","position":' || position::text
  || ',"previous_hash":"' || previous_hash || '","profile":"' || profile
  || '","resource":{"id":"' || resource_id || '","kind":"' || resource_kind
  || '"},"resource_index":"' || resource_index || '","security":"' || security || '","verdict":"' || verdict || '","version":"' || version || '"}'`;
const PLAIN = `previous_hash || entry_hash || profile || resource_kind || resource_id || version
  || compatibility || digest || baseline || verdict || security || resource_index`;

/** Column forms, in reporting order, checked only on the faulty row to name its column. */
const COLUMN_CHECKS: readonly (readonly [string, string])[] = [
  ['previous_hash', `previous_hash ~ ${DIGEST_OR_GENESIS}`],
  ['entry_hash', `entry_hash ~ ${DIGEST}`],
  ['profile', `profile = '${PROFILE}'`],
  ['resource_kind', `resource_kind IN (${list(['Source', 'Model', 'SemanticModel'])})`],
  ['resource_id', `resource_id ~ ${RESOURCE_ID} AND length(resource_id) <= 128`],
  ['version', `version ~ ${VERSION}`],
  ['compatibility', `compatibility IN (${list(['backward', 'forward', 'full', 'none'])})`],
  ['digest', `digest ~ ${DIGEST}`],
  ['baseline', `baseline ~ ${DIGEST_OR_GENESIS}`],
  ['verdict', `verdict IN (${list(['genesis', 'compatible', 'widening', 'breaking'])})`],
  ['security', `security IN (${list(['unchanged', 'widened', 'narrowed'])})`],
  ['changes', `strpos(changes, ',"checks":') = 0`],
  ['affected', `strpos(affected, ',"approval":') = 0`],
  ['approval', `approval IS DISTINCT FROM 'null'`],
  ['resource_index', `resource_index ~ ${DIGEST}`],
];

/**
 * One statement that walks the chain from position $1 to the head and
 * returns its first fault: a missing position, a previous hash that is not
 * the entry before, a column out of its stored form, or an entry hash that
 * the stored columns do not reproduce. $2 is the entry hash already verified
 * at $1 (or `genesis`, the previous hash of position 1, when the walk starts
 * there). The per-column diagnosis runs on the faulty row only.
 */
const WALK = `WITH chain AS (
  SELECT position, previous_hash, entry_hash, profile, resource_kind, resource_id, version,
    compatibility, digest, baseline, verdict, security, changes, affected, approval, resource_index,
    lag(position) OVER (ORDER BY ${BY_POSITION}) AS before_position,
    lag(entry_hash) OVER (ORDER BY ${BY_POSITION}) AS before_hash,
    ${DOCUMENT} AS document,
    ${PLAIN} AS plain
  FROM ${LEDGER_TABLE} WHERE position >= $1::bigint
), faulty AS (
  SELECT * FROM chain WHERE
    position <> coalesce(before_position + 1, $1::bigint)
    OR (before_position IS NULL AND $1::bigint = 1 AND previous_hash <> 'genesis')
    OR (before_position IS NULL AND $1::bigint > 1 AND entry_hash <> $2)
    OR previous_hash <> coalesce(before_hash, previous_hash)
    OR strpos(plain, '"') > 0 OR strpos(plain, '\\') > 0
    OR strpos(changes, ',"checks":') > 0 OR strpos(affected, ',"approval":') > 0 OR approval = 'null'
    OR 'sha256:' || encode(sha256(convert_to(document, 'UTF8')), 'hex') <> entry_hash
  ORDER BY position LIMIT 1
)
SELECT position::text AS position, before_position::text AS before_position, CASE
    WHEN before_position IS NULL AND position <> $1::bigint THEN 'start'
    WHEN before_position IS NOT NULL AND position <> before_position + 1 THEN 'position'
    WHEN before_position IS NULL AND $1::bigint > 1 THEN 'entry_hash'
    WHEN previous_hash <> coalesce(before_hash, 'genesis') THEN 'previous_hash'
    ${COLUMN_CHECKS.map(([column, check]) => `WHEN NOT (${check}) THEN '${column}'`).join('\n    ')}
    ELSE 'entry_hash'
  END AS fault
FROM faulty`;

/**
 * Verifies in the database that the hash chain from `from` (an entry the
 * caller has verified, or null: from position 1) to the head is intact:
 * positions contiguous, each previous hash the entry before, each entry hash
 * reproduced from its stored columns; the first fault is refused with its
 * position and column. Reads do not need it (the resource index proves what
 * they rely on); a read whose index check failed runs it from position 1 to
 * name the entry that was changed, removed or inserted. A rewrite of every
 * entry from some position to the end, hashes recomputed, stays undetectable
 * here; only a head recorded elsewhere shows it
 * (docs/contracts.md#replay-and-tamper-evidence).
 */
export async function verifyChainToHead(session: LedgerSession, from: LedgerEntry | null): Promise<void> {
  const start = from?.position ?? 1;
  const rows = await session.query(WALK, [String(start), from?.entryHash ?? 'genesis']);
  const fault = rows[0];
  if (fault === undefined) return;
  const position = Number(fault.position);
  const field = String(fault.fault);
  if (field === 'start') throw tampered(start, 'position');
  if (field === 'position') throw tampered(Number(fault.before_position) + 1, 'position');
  throw tampered(position, field);
}
