import { type Sha256Hex, sha256Hex } from '../core/digest/index.js';
import { pyDumps } from '../core/json/index.js';
import { guardScoped } from './canonical.js';
import { MAX_WRITE_FIELD } from './limits.js';
import { fail, readOneOf, readRecord, type Site } from './read.js';
import {
  CONNECTOR_ALIASES,
  CONNECTORS,
  type Connector,
  WRITE_KINDS,
  WRITE_ROLES,
  type WriteKind,
  type WriteRole,
} from './vocabulary.js';

/**
 * The original ten-field legacy write (dbt's relation write) exactly as the
 * request's producer recorded it. Its logical write hash is the SHA-256 of
 * its canonical bytes; that hash is not a physical subject hash.
 */
export interface DbtRelationWrite {
  readonly project_path: string;
  readonly workflow_id: string;
  readonly resource_id: string;
  readonly kind: WriteKind;
  readonly connector: Connector;
  readonly connection_ref: string;
  readonly database: string | null;
  readonly schema: string;
  readonly relation: string;
  readonly role: WriteRole;
}

/** What a producer hands to createDbtRelationWrite: a connector alias and an omitted role are allowed here only. */
export interface DbtRelationWriteInput {
  readonly project_path: string;
  readonly workflow_id: string;
  readonly resource_id: string;
  readonly kind: string;
  readonly connector: string;
  readonly connection_ref: string;
  readonly database: string | null;
  readonly schema: string;
  readonly relation: string;
  readonly role?: string;
}

const WRITE_FIELDS = [
  'connection_ref',
  'connector',
  'database',
  'kind',
  'project_path',
  'relation',
  'resource_id',
  'role',
  'schema',
  'workflow_id',
] as const;

const TEXT_FIELDS = [
  'connection_ref',
  'project_path',
  'relation',
  'resource_id',
  'schema',
  'workflow_id',
] as const;

/** The role a construction fills in when its input has none; on the wire it is always explicit. */
export const DEFAULT_WRITE_ROLE: WriteRole = 'model';

const WRITE_SITE: Site = { reason: 'scoped_execution_write_binding', role: 'write' };

// Control characters (C0, DEL, C1) and lone surrogates have no place in a plain original
// string (and a lone surrogate has no canonical form).
const UNPLAIN = /\p{Cc}|\p{Surrogate}/u;

function isPlainText(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length > 0 && value.length <= MAX_WRITE_FIELD && !UNPLAIN.test(value)
  );
}

/**
 * The normalization a legitimate construction applies: a connector alias
 * becomes its canonical name. It only ever runs on a detached copy.
 */
function normalizeCopy(copy: Record<string, unknown>): void {
  const connector = copy.connector;
  if (typeof connector === 'string' && Object.hasOwn(CONNECTOR_ALIASES, connector)) {
    copy.connector = CONNECTOR_ALIASES[connector];
  }
}

/**
 * Validates a detached copy of an original write and requires every field of
 * the normalized copy to equal the original: an embedded canonical connector
 * later changed to an alias is a changed original and refuses. The supplied
 * value is never modified; once checked, it is returned as it is.
 */
export function readWrite(value: unknown, site: Site, field: string): DbtRelationWrite {
  const fields = readRecord(value, WRITE_FIELDS, site, field);
  const copy: Record<string, unknown> = { ...fields };
  normalizeCopy(copy);
  for (const key of WRITE_FIELDS) {
    if (copy[key] !== fields[key]) fail(site, field, `.${key}`);
  }
  for (const key of TEXT_FIELDS) {
    if (!isPlainText(copy[key])) fail(site, field, `.${key}`);
  }
  if (copy.database !== null && !isPlainText(copy.database)) fail(site, field, '.database');
  readOneOf(copy.kind, WRITE_KINDS, site, field, '.kind');
  readOneOf(copy.connector, CONNECTORS, site, field, '.connector');
  readOneOf(copy.role, WRITE_ROLES, site, field, '.role');
  return value as DbtRelationWrite;
}

/**
 * The legitimate construction of an original write: copies the input,
 * canonicalizes a connector alias, makes the default role explicit, and
 * validates. The input itself is left untouched.
 */
export function createDbtRelationWrite(input: DbtRelationWriteInput): DbtRelationWrite {
  return guardScoped(WRITE_SITE, () => {
    const copy: Record<string, unknown> = {
      project_path: input.project_path,
      workflow_id: input.workflow_id,
      resource_id: input.resource_id,
      kind: input.kind,
      connector: input.connector,
      connection_ref: input.connection_ref,
      database: input.database,
      schema: input.schema,
      relation: input.relation,
      role: input.role ?? DEFAULT_WRITE_ROLE,
    };
    normalizeCopy(copy);
    return Object.freeze(readWrite(copy, WRITE_SITE, 'write'));
  });
}

/** The logical write hash of a validated write: SHA-256 of its canonical bytes. */
export function logicalWriteSha256(write: DbtRelationWrite): Sha256Hex {
  return guardScoped(WRITE_SITE, () => {
    // One read of each property: what is checked is what is hashed.
    const detached = { ...(write as object) };
    return sha256Hex(pyDumps(readWrite(detached, WRITE_SITE, 'write')));
  });
}

/** The same hash without revalidating: for callers that just validated `write`. */
export function logicalWriteSha256Unchecked(write: DbtRelationWrite): Sha256Hex {
  return sha256Hex(pyDumps(write));
}
