import { canonicalize, parseStrict } from '../../core/json/index.js';
import { refuseLedger } from './refusals.js';
import { type LedgerSession, LedgerSqlError } from './session.js';

/** Written on the table as its comment; a table without it is not this ledger. */
export const LEDGER_FORMAT = 'sealkit.contract-ledger/v2';
export const LEDGER_SCHEMA = 'sealkit_ledger';
export const LEDGER_TABLE = `${LEDGER_SCHEMA}.publications`;
/** The role a deployment grants SELECT and INSERT (never UPDATE, DELETE or TRUNCATE) when it exists. */
export const LEDGER_PUBLISHER_ROLE = 'sealkit_ledger_publisher';
/** SQLSTATE raised by the append-only triggers. */
export const APPEND_ONLY_SQLSTATE = 'SKL01';
/** Advisory lock key serializing appends and schema creation: "sealkit" in ASCII. */
export const LEDGER_LOCK_KEY = '32495325108218228';

/** Columns in table order with their types, as `format_type` reports them on PostgreSQL 15 and PGlite. */
export const LEDGER_COLUMNS: readonly (readonly [string, string])[] = [
  ['position', 'bigint'],
  ['previous_hash', 'text'],
  ['entry_hash', 'text'],
  ['profile', 'text'],
  ['resource_kind', 'text'],
  ['resource_id', 'text'],
  ['version', 'text'],
  ['compatibility', 'text'],
  ['digest', 'text'],
  ['projection', 'bytea'],
  ['baseline', 'text'],
  ['verdict', 'text'],
  ['security', 'text'],
  ['changes', 'text'],
  ['checks', 'text'],
  ['affected', 'text'],
  ['approval', 'text'],
  ['resource_index', 'text'],
  ['index_bucket', 'smallint'],
  ['bucket_digest', 'text'],
];

/**
 * The ledger DDL: one table, append-only in the database. Triggers refuse
 * UPDATE, DELETE and TRUNCATE for everyone (owners included); privileges give
 * PUBLIC nothing and the publisher role only SELECT and INSERT. Unique
 * constraints make the chain linear: one entry per position and per previous
 * hash, one successor per (resource, baseline), one entry per (resource,
 * version). The same statements run on PostgreSQL 15 and on PGlite, one at
 * a time (PGlite's extended protocol takes one statement per query).
 */
const CREATE: readonly string[] = [
  'CREATE SCHEMA IF NOT EXISTS sealkit_ledger',
  // Index order matters: PostgreSQL checks a primary key first, then unique
  // indexes in creation order. Position is therefore a unique column declared
  // after the per-resource constraints, so a competing publication of the same
  // resource that only the insert can see (e.g. under REPEATABLE READ) trips
  // those first and is reported as a stale baseline, not as a moved chain head.
  `CREATE TABLE sealkit_ledger.publications (
  position bigint NOT NULL CHECK (position >= 1),
  previous_hash text NOT NULL,
  entry_hash text NOT NULL,
  profile text NOT NULL,
  resource_kind text NOT NULL,
  resource_id text NOT NULL,
  version text NOT NULL,
  compatibility text NOT NULL,
  digest text NOT NULL,
  projection bytea NOT NULL,
  baseline text NOT NULL,
  verdict text NOT NULL,
  security text NOT NULL,
  changes text NOT NULL,
  checks text NOT NULL,
  affected text NOT NULL,
  approval text,
  resource_index text NOT NULL,
  index_bucket smallint NOT NULL CHECK (index_bucket BETWEEN 0 AND 255),
  bucket_digest text NOT NULL,
  CONSTRAINT publications_one_successor UNIQUE (resource_id, baseline),
  CONSTRAINT publications_version_once UNIQUE (resource_id, version),
  CONSTRAINT publications_position_once UNIQUE (position),
  CONSTRAINT publications_previous_hash_once UNIQUE (previous_hash),
  CONSTRAINT publications_entry_hash_once UNIQUE (entry_hash)
)`,
  // A read finds each bucket's latest entry before the head with one index probe per bucket.
  'CREATE INDEX publications_by_bucket ON sealkit_ledger.publications (index_bucket, position)',
  `COMMENT ON TABLE sealkit_ledger.publications IS '${LEDGER_FORMAT}'`,
  `CREATE FUNCTION sealkit_ledger.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'the sealkit contract ledger is append-only' USING ERRCODE = '${APPEND_ONLY_SQLSTATE}';
END
$fn$`,
  `CREATE TRIGGER publications_append_only BEFORE UPDATE OR DELETE ON sealkit_ledger.publications
  FOR EACH ROW EXECUTE FUNCTION sealkit_ledger.refuse_change()`,
  `CREATE TRIGGER publications_no_truncate BEFORE TRUNCATE ON sealkit_ledger.publications
  FOR EACH STATEMENT EXECUTE FUNCTION sealkit_ledger.refuse_change()`,
  'REVOKE ALL ON sealkit_ledger.publications FROM PUBLIC',
  `DO $grant$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${LEDGER_PUBLISHER_ROLE}') THEN
    GRANT USAGE ON SCHEMA sealkit_ledger TO ${LEDGER_PUBLISHER_ROLE};
    GRANT SELECT, INSERT ON sealkit_ledger.publications TO ${LEDGER_PUBLISHER_ROLE};
  END IF;
END
$grant$`,
];

/**
 * Everything sealkit checks about the ledger table, in one statement: whether
 * it exists, its format comment, its columns, its enabled append-only
 * triggers, its valid unique indexes on whole columns (name and columns; a
 * partial index or one on an expression keeps nothing unique), and whether this
 * session skips ordinary triggers (replica mode).
 */
const INSPECT = `SELECT c.oid IS NOT NULL AS present,
  obj_description(c.oid, 'pg_class') AS format,
  (SELECT json_agg(json_build_array(attname::text, format_type(atttypid, atttypmod)) ORDER BY attnum)
     FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped)::text AS columns,
  (SELECT json_agg(tgname::text ORDER BY tgname) FROM pg_trigger
     WHERE tgrelid = c.oid AND NOT tgisinternal AND tgenabled IN ('O', 'A'))::text AS triggers,
  (SELECT json_agg(tgname::text ORDER BY tgname) FROM pg_trigger
     WHERE tgrelid = c.oid AND NOT tgisinternal)::text AS all_triggers,
  (SELECT json_agg(json_build_array(i.relname::text,
       (SELECT json_agg(a.attname::text ORDER BY k.n)
          FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum)) ORDER BY i.relname)
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
     WHERE x.indrelid = c.oid AND x.indisunique AND x.indisvalid
       AND x.indpred IS NULL AND x.indexprs IS NULL)::text AS uniques,
  current_setting('session_replication_role') AS mode,
  n.oid IS NOT NULL AS schema_present,
  CASE WHEN n.oid IS NULL THEN has_database_privilege(current_database(), 'CREATE')
       ELSE has_schema_privilege(n.oid, 'CREATE') END AS may_create
FROM (SELECT to_regclass('${LEDGER_TABLE}')::oid AS oid) AS c
  LEFT JOIN pg_namespace n ON n.nspname = '${LEDGER_SCHEMA}'`;

const EXPECTED_COLUMNS = canonicalize(LEDGER_COLUMNS);
const REQUIRED_TRIGGERS = ['publications_append_only', 'publications_no_truncate'];
/** What each append-only trigger refuses, in words, for the refusal that finds it off. */
const TRIGGER_KEEPS: Readonly<Record<string, string>> = {
  publications_append_only: 'entries from being updated or deleted',
  publications_no_truncate: 'the table from being truncated',
};
/**
 * The unique constraints that keep the chain linear, with what each one
 * guarantees (named in the refusal when one was dropped).
 */
interface RequiredUnique {
  readonly name: string;
  readonly columns: readonly string[];
  /** What it guarantees, in words. */
  readonly keeps: string;
}
const REQUIRED_UNIQUES: readonly RequiredUnique[] = [
  { name: 'publications_entry_hash_once', columns: ['entry_hash'], keeps: 'one entry per entry hash' },
  {
    name: 'publications_one_successor',
    columns: ['resource_id', 'baseline'],
    keeps: 'one successor per (resource, baseline)',
  },
  { name: 'publications_position_once', columns: ['position'], keeps: 'one entry per position' },
  {
    name: 'publications_previous_hash_once',
    columns: ['previous_hash'],
    keeps: 'one entry per previous hash',
  },
  {
    name: 'publications_version_once',
    columns: ['resource_id', 'version'],
    keeps: 'one entry per (resource, version)',
  },
];

export interface LedgerInspection {
  readonly present: boolean;
  /** The table is this ledger: format comment and exact columns. */
  readonly isLedger: boolean;
  /** The table's format comment, when it has one. */
  readonly format: string | null;
  /** Both append-only triggers are enabled and this session does not bypass them. */
  readonly protected: boolean;
  /** The unique constraints the table lacks (dropped, or not valid). */
  readonly missingUniques: readonly RequiredUnique[];
  /** The append-only triggers that exist but are disabled. */
  readonly disabledTriggers: readonly string[];
  /** The append-only triggers that do not exist (dropped). */
  readonly droppedTriggers: readonly string[];
  /** `session_replication_role` of this session: anything but `origin` skips ordinary triggers. */
  readonly replicationRole: string;
  /** The schema `sealkit_ledger` exists. */
  readonly schemaPresent: boolean;
  /**
   * This role may create what is missing of the ledger: CREATE on the
   * database when the schema does not exist, else CREATE on the schema.
   */
  readonly mayCreate: boolean;
}

/** Catalog text read as strict JSON (the only JSON reader sealkit uses). */
function catalogJson(text: unknown): unknown {
  return typeof text === 'string' ? parseStrict(Buffer.from(text, 'utf8')) : null;
}

export async function inspectLedger(session: LedgerSession): Promise<LedgerInspection> {
  const row = (await session.query(INSPECT))[0];
  const present = row?.present === true;
  const triggers = catalogJson(row?.triggers);
  const enabled = Array.isArray(triggers) ? triggers : [];
  const all = catalogJson(row?.all_triggers);
  const existing = Array.isArray(all) ? all : [];
  return {
    present,
    format: typeof row?.format === 'string' ? row.format : null,
    isLedger:
      present &&
      row?.format === LEDGER_FORMAT &&
      canonicalize(catalogJson(row?.columns)) === EXPECTED_COLUMNS,
    protected: row?.mode === 'origin' && REQUIRED_TRIGGERS.every((name) => enabled.includes(name)),
    missingUniques: missingUniques(catalogJson(row?.uniques)),
    disabledTriggers: REQUIRED_TRIGGERS.filter((name) => existing.includes(name) && !enabled.includes(name)),
    droppedTriggers: REQUIRED_TRIGGERS.filter((name) => !existing.includes(name)),
    replicationRole: typeof row?.mode === 'string' ? row.mode : 'unknown',
    schemaPresent: row?.schema_present === true,
    mayCreate: row?.may_create === true,
  };
}

function missingUniques(found: unknown): readonly RequiredUnique[] {
  const present = new Set((Array.isArray(found) ? found : []).map((index: unknown) => canonicalize(index)));
  return REQUIRED_UNIQUES.filter((unique) => !present.has(canonicalize([unique.name, [...unique.columns]])));
}

/** Refuses a table of another shape or format, then one whose append-only guard is not in force. */
export function requireUsableLedger(inspection: LedgerInspection): void {
  if (!inspection.isLedger) throw schemaMismatch(inspection);
  requireGuardedLedger(inspection);
}

/** Refuses a ledger whose append-only triggers or unique constraints are not in force. */
export function requireGuardedLedger(inspection: LedgerInspection): void {
  if (!inspection.protected) {
    throw refuseLedger('contract_ledger_unprotected', { role: 'ledger', hint: unprotectedHint(inspection) });
  }
  const missing = inspection.missingUniques;
  if (missing.length > 0) {
    const [s, it] = missing.length === 1 ? ['', 'it'] : ['s', 'them'];
    const named = missing.map((unique) => `${unique.name} (${unique.keeps})`).join(', ');
    const statements = missing
      .map(
        (unique) =>
          `ALTER TABLE ${LEDGER_TABLE} ADD CONSTRAINT ${unique.name} UNIQUE (${unique.columns.join(', ')});`,
      )
      .join(' ');
    throw refuseLedger('contract_ledger_unprotected', {
      role: 'ledger',
      hint: `the ledger table lacks the unique constraint${s} ${named}, so nothing keeps ${it === 'it' ? 'that' : 'those'} true. Restore ${it}: ${statements}`,
    });
  }
}

/**
 * Which guard is off and the statement that turns it on again: a session
 * that skips triggers, a disabled trigger, a dropped one (its statement from
 * the DDL above).
 */
function unprotectedHint(inspection: LedgerInspection): string {
  if (inspection.replicationRole !== 'origin') {
    return `this session has session_replication_role = ${inspection.replicationRole}, which skips the append-only triggers: connect with it at origin (check PGOPTIONS and ALTER ROLE or ALTER DATABASE … SET session_replication_role)`;
  }
  const keeps = (names: readonly string[]) => names.map((name) => TRIGGER_KEEPS[name] ?? name).join(' and ');
  const parts: string[] = [];
  const { disabledTriggers: disabled, droppedTriggers: dropped } = inspection;
  if (disabled.length > 0) {
    const statements = disabled
      .map((name) => `ALTER TABLE ${LEDGER_TABLE} ENABLE TRIGGER ${name};`)
      .join(' ');
    parts.push(
      `the append-only trigger${disabled.length === 1 ? ' ' : 's '}${disabled.join(', ')} ${disabled.length === 1 ? 'is' : 'are'} disabled, so nothing keeps ${keeps(disabled)}. Enable ${disabled.length === 1 ? 'it' : 'them'} as the table owner: ${statements}`,
    );
  }
  if (dropped.length > 0) {
    const statements = dropped
      .map((name) => CREATE.find((statement) => statement.startsWith(`CREATE TRIGGER ${name} `)))
      .filter((statement): statement is string => statement !== undefined)
      .map((statement) => `${statement.replace(/\s+/g, ' ')};`)
      .join(' ');
    parts.push(
      `the append-only trigger${dropped.length === 1 ? ' ' : 's '}${dropped.join(', ')} ${dropped.length === 1 ? 'was' : 'were'} dropped, so nothing keeps ${keeps(dropped)}. Restore ${dropped.length === 1 ? 'it' : 'them'} as the table owner: ${statements}`,
    );
  }
  return parts.join('; ');
}

const FORMAT_PREFIX = 'sealkit.contract-ledger/';

/**
 * A table that is not this ledger; one written by another sealkit version
 * says which format it holds and what to do (docs/contracts.md#storage-postgresql-append-only-hash-chained).
 */
export function schemaMismatch(inspection: LedgerInspection) {
  const format = inspection.format;
  if (format === null || format === LEDGER_FORMAT || !format.startsWith(FORMAT_PREFIX)) {
    return refuseLedger('contract_ledger_schema_mismatch', { role: 'ledger' });
  }
  return refuseLedger('contract_ledger_schema_mismatch', {
    role: 'ledger',
    hint: `this ledger holds format ${format.slice(FORMAT_PREFIX.length)}, written by another sealkit version; this one reads and writes ${LEDGER_FORMAT.slice(FORMAT_PREFIX.length)}. Publish into a new ledger (embedded: move .sealkit/ledger aside) and keep this one, replayed with the version that wrote it`,
  });
}

/** True when the ledger table exists (nothing is created). */
export async function ledgerExists(session: LedgerSession): Promise<boolean> {
  return (await inspectLedger(session)).present;
}

/**
 * Fails closed unless the caller's session is inside a transaction block (a
 * transaction id assigned by one statement is still assigned in the next one
 * only when both run in the same transaction), and takes the ledger lock,
 * which serializes appends and schema creation until that transaction ends.
 */
export async function requireTransaction(session: LedgerSession): Promise<void> {
  await session.query('SELECT pg_current_xact_id()::text AS xid');
  const rows = await session.query(
    `SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS inside
       FROM (SELECT pg_advisory_xact_lock(${LEDGER_LOCK_KEY}::bigint)) AS locked`,
  );
  if (rows[0]?.inside !== true)
    throw refuseLedger('contract_ledger_transaction_required', { role: 'ledger' });
}

/** Takes the ledger lock until the caller's transaction ends. */
export async function lockLedger(session: LedgerSession): Promise<void> {
  await session.query(`SELECT pg_advisory_xact_lock(${LEDGER_LOCK_KEY}::bigint)`);
}

/**
 * In the caller's transaction and under the ledger lock, creates the ledger
 * when it does not exist, then checks that it is the ledger this version
 * writes and that it is protected.
 */
export async function ensureLedgerSchema(session: LedgerSession): Promise<void> {
  await requireTransaction(session);
  let inspection = await inspectLedger(session);
  if (!inspection.present) {
    // The usual first mistake on a server: the first publication run as a
    // publisher, which may write the ledger but not create it.
    if (!inspection.mayCreate)
      throw refuseLedger('contract_ledger_missing', { role: 'ledger', hint: cannotCreateHint(inspection) });
    try {
      for (const statement of CREATE) await session.query(statement);
    } catch (error: unknown) {
      if (error instanceof LedgerSqlError && error.sqlstate === '42501') {
        throw refuseLedger('contract_ledger_failed', {
          role: 'ledger',
          hint: `this role may not create the ledger (SQLSTATE 42501 while creating it): ${FIRST_PUBLICATION}`,
        });
      }
      throw error;
    }
    inspection = await inspectLedger(session);
  }
  requireUsableLedger(inspection);
}

const FIRST_PUBLICATION = `run the first publication as a role that may (the database owner, say); later ones can run as a member of ${LEDGER_PUBLISHER_ROLE}`;

/** Why this role cannot create the ledger, and who can. */
function cannotCreateHint(inspection: LedgerInspection): string {
  return inspection.schemaPresent
    ? `this role may not create the ledger table in schema ${LEDGER_SCHEMA} (no CREATE privilege on the schema): ${FIRST_PUBLICATION}`
    : `this role may not create schema ${LEDGER_SCHEMA} in this database (no CREATE privilege on the database): ${FIRST_PUBLICATION}`;
}

/** Refuses a missing ledger, a table that is not this ledger, or an unprotected one. */
export async function checkLedgerSchema(session: LedgerSession): Promise<void> {
  const inspection = await inspectLedger(session);
  if (!inspection.present) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
  requireUsableLedger(inspection);
}
