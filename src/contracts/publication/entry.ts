import { isSha256Prefixed, type Sha256Prefixed, sha256Prefixed } from '../../core/digest/index.js';
import { canonicalize, canonicalizeToBytes, parseStrict } from '../../core/json/index.js';
import { isResourceId, VERSION_PATTERN } from '../authoring/identifiers.js';
import { PROFILE } from '../projection/payload.js';
import type { ContractChange } from '../version/changes.js';
import { CONTRACT_RULES, type ContractRuleId } from '../version/rules.js';
import { approvalJson, checkApproval, type WideningApproval } from './approval.js';
import { tampered } from './refusals.js';
import { indexBucketOf } from './resource-index.js';
import { LEDGER_COLUMNS, LEDGER_FORMAT, LEDGER_TABLE } from './schema.js';
import type { LedgerParam, LedgerRow } from './session.js';

export type ContractKindName = 'Source' | 'Model' | 'SemanticModel';
export type CompatibilityMode = 'backward' | 'forward' | 'full' | 'none';
/** `genesis` for a resource's first publication; `identical` is never appended (it is idempotent). */
export type PublicationVerdict = 'genesis' | 'compatible' | 'widening' | 'breaking';
/** Whether the change widened or narrowed who may see fields (classification changes). */
export type SecurityResult = 'unchanged' | 'widened' | 'narrowed';

/** The validation checks a publication passed, recorded with it (sorted). */
export const PUBLICATION_CHECKS = [
  'baseline_current',
  'baseline_genesis',
  'canonical_decoding',
  'classification',
  'digest',
  'major_version_bump',
  'version_increases',
  'widening_approval',
] as const;
export type PublicationCheck = (typeof PUBLICATION_CHECKS)[number];

export interface ResourceIdentity {
  readonly kind: ContractKindName;
  readonly id: string;
}

/** One publication: everything the ledger stores about it, each part bound by the entry hash. */
export interface LedgerEntry {
  readonly position: number;
  /** The previous entry's hash (any resource), or `genesis` for position 1. */
  readonly previousHash: Sha256Prefixed | 'genesis';
  readonly entryHash: Sha256Prefixed;
  readonly profile: string;
  readonly resource: ResourceIdentity;
  readonly version: string;
  readonly compatibility: CompatibilityMode;
  readonly digest: Sha256Prefixed;
  /** The canonical leapview.contract/v1 bytes. */
  readonly projection: Uint8Array;
  /** The digest of the resource's previous publication, or `genesis`. */
  readonly baseline: Sha256Prefixed | 'genesis';
  readonly verdict: PublicationVerdict;
  readonly security: SecurityResult;
  readonly changes: readonly ContractChange[];
  readonly checks: readonly PublicationCheck[];
  /** The directly published identity: the seed of graph expansion, never the consumers themselves. */
  readonly affected: ResourceIdentity;
  readonly approval: WideningApproval | null;
  /** The root of the resource index before this entry: every resource's latest entry hash. */
  readonly resourceIndex: Sha256Prefixed;
  /**
   * The digest of this resource's index bucket after this entry. Stored, not
   * hashed (it covers the entry hash); the next entry's `resourceIndex`
   * authenticates it, and a read recomputes it for the head.
   */
  readonly bucketDigest: Sha256Prefixed;
}

export type UnhashedEntry = Omit<LedgerEntry, 'entryHash' | 'bucketDigest'>;

/**
 * The document the entry hash covers: every stored column but the hash itself
 * and the two index helpers `index_bucket` and `bucket_digest` (bytes by digest).
 */
export function entryHashDocument(entry: UnhashedEntry): Readonly<Record<string, unknown>> {
  return {
    format: LEDGER_FORMAT,
    position: entry.position,
    previous_hash: entry.previousHash,
    profile: entry.profile,
    resource: { kind: entry.resource.kind, id: entry.resource.id },
    version: entry.version,
    compatibility: entry.compatibility,
    digest: entry.digest,
    baseline: entry.baseline,
    verdict: entry.verdict,
    security: entry.security,
    changes: entry.changes,
    checks: entry.checks,
    affected: { kind: entry.affected.kind, id: entry.affected.id },
    approval: entry.approval === null ? null : approvalJson(entry.approval),
    resource_index: entry.resourceIndex,
  };
}

export function entryHashOf(entry: UnhashedEntry): Sha256Prefixed {
  return sha256Prefixed(canonicalizeToBytes(entryHashDocument(entry)));
}

/** Column values of an entry, in `LEDGER_COLUMNS` order. */
export function entryParams(entry: LedgerEntry): LedgerParam[] {
  return [
    String(entry.position),
    entry.previousHash,
    entry.entryHash,
    entry.profile,
    entry.resource.kind,
    entry.resource.id,
    entry.version,
    entry.compatibility,
    entry.digest,
    entry.projection,
    entry.baseline,
    entry.verdict,
    entry.security,
    canonicalize(entry.changes),
    canonicalize(entry.checks),
    canonicalize({ id: entry.affected.id, kind: entry.affected.kind }),
    entry.approval === null ? null : canonicalize(approvalJson(entry.approval)),
    entry.resourceIndex,
    String(indexBucketOf(entry.resource.id)),
    entry.bucketDigest,
  ];
}

export const INSERT_ENTRY = `INSERT INTO ${LEDGER_TABLE} (${LEDGER_COLUMNS.map(([name]) => name).join(', ')})
  VALUES (${LEDGER_COLUMNS.map(([, type], index) => `$${index + 1}::${type}`).join(', ')})`;

/**
 * Every column, numbers as text so both backends return the same JavaScript
 * values. The text column keeps the name `position`, so ordering must name
 * the table's column (`BY_POSITION`): a bare `ORDER BY position` would sort
 * the text alias ('10' before '2').
 */
export const BY_POSITION = `${LEDGER_TABLE}.position`;
const AS_TEXT = new Set(['position', 'index_bucket']);
export const SELECT_ENTRY = `SELECT ${LEDGER_COLUMNS.map(([name]) => (AS_TEXT.has(name) ? `${name}::text AS ${name}` : name)).join(', ')} FROM ${LEDGER_TABLE}`;

const KINDS: readonly string[] = ['Source', 'Model', 'SemanticModel'];
const MODES: readonly string[] = ['backward', 'forward', 'full', 'none'];
const VERDICTS: readonly string[] = ['genesis', 'compatible', 'widening', 'breaking'];
const SECURITY: readonly string[] = ['unchanged', 'widened', 'narrowed'];
const POSITION = /^[1-9][0-9]{0,14}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const hasKeys = (value: Record<string, unknown>, keys: readonly string[]) =>
  JSON.stringify(Object.keys(value).sort()) === JSON.stringify([...keys].sort());

/** A JSON column: strict JSON whose text is exactly its RFC 8785 encoding. */
function canonicalJson(text: unknown): unknown {
  if (typeof text !== 'string') throw new Error('not text');
  const value: unknown = parseStrict(Buffer.from(text, 'utf8'), { maxBytes: 8 * 1024 * 1024, maxDepth: 8 });
  if (canonicalize(value) !== text) throw new Error('not canonical');
  return value;
}

function changesOf(text: unknown): ContractChange[] {
  const value = canonicalJson(text);
  if (!Array.isArray(value)) throw new Error('not a list');
  return value.map((change): ContractChange => {
    if (!isRecord(change) || !hasKeys(change, ['path', 'rule', 'verdict'])) throw new Error('not a change');
    const { path, rule, verdict } = change;
    if (typeof path !== 'string' || typeof rule !== 'string' || !Object.hasOwn(CONTRACT_RULES, rule)) {
      throw new Error('not a change');
    }
    const expected = CONTRACT_RULES[rule as ContractRuleId].verdict;
    if (verdict !== expected) throw new Error('not the rule verdict');
    return { path, rule: rule as ContractRuleId, verdict: expected };
  });
}

function checksOf(text: unknown): PublicationCheck[] {
  const value = canonicalJson(text);
  if (!Array.isArray(value)) throw new Error('not a list');
  for (const check of value) {
    if (!(PUBLICATION_CHECKS as readonly unknown[]).includes(check)) throw new Error('unknown check');
  }
  return value as PublicationCheck[];
}

function identityOf(text: unknown): ResourceIdentity {
  const value = canonicalJson(text);
  if (!isRecord(value) || !hasKeys(value, ['id', 'kind'])) throw new Error('not an identity');
  if (typeof value.id !== 'string' || !isResourceId(value.id) || !KINDS.includes(value.kind as string)) {
    throw new Error('not an identity');
  }
  return { kind: value.kind as ContractKindName, id: value.id };
}

function approvalOf(text: unknown): WideningApproval | null {
  if (text === null) return null;
  const value = canonicalJson(text);
  if (!isRecord(value) || !hasKeys(value, ['approved_at', 'approver', 'approves', 'reason'])) {
    throw new Error('not an approval');
  }
  const { approved_at, approver, approves, reason } = value;
  if ([approved_at, approver, approves, reason].some((part) => typeof part !== 'string')) {
    throw new Error('not an approval');
  }
  return checkApproval({
    approves: approves as string,
    approver: approver as string,
    approvedAt: approved_at as string,
    reason: reason as string,
  });
}

const digestOf = (value: unknown): Sha256Prefixed => {
  if (typeof value !== 'string' || !isSha256Prefixed(value)) throw new Error('not a digest');
  return value;
};
const digestOrGenesis = (value: unknown): Sha256Prefixed | 'genesis' =>
  value === 'genesis' ? 'genesis' : digestOf(value);
const oneOf = (value: unknown, allowed: readonly string[]): string => {
  if (typeof value !== 'string' || !allowed.includes(value)) throw new Error('not allowed');
  return value;
};

/**
 * Reads one stored row strictly: every column must have the exact form
 * sealkit writes. A column that does not is tampered evidence at that
 * position, named by the column. (The hash, digest and chain are checked by
 * the callers, which know the neighbours.)
 */
export function entryOfRow(row: LedgerRow, expectedPosition: number): LedgerEntry {
  const column = <T>(name: string, read: (value: unknown) => T): T => {
    try {
      return read(row[name]);
    } catch {
      throw tampered(expectedPosition, name);
    }
  };
  const position = column('position', (value) => {
    if (typeof value !== 'string' || !POSITION.test(value) || Number(value) !== expectedPosition) {
      throw new Error('not the expected position');
    }
    return expectedPosition;
  });
  return Object.freeze({
    position,
    previousHash: column('previous_hash', digestOrGenesis),
    entryHash: column('entry_hash', digestOf),
    profile: column('profile', (value) => oneOf(value, [PROFILE])),
    resource: {
      kind: column('resource_kind', (value) => oneOf(value, KINDS) as ContractKindName),
      id: column('resource_id', (value) => {
        if (typeof value !== 'string' || !isResourceId(value)) throw new Error('not an id');
        return value;
      }),
    },
    version: column('version', (value) => {
      if (typeof value !== 'string' || !VERSION_PATTERN.test(value)) throw new Error('not a version');
      return value;
    }),
    compatibility: column('compatibility', (value) => oneOf(value, MODES) as CompatibilityMode),
    digest: column('digest', digestOf),
    projection: column('projection', (value) => {
      if (!(value instanceof Uint8Array)) throw new Error('not bytes');
      return value;
    }),
    baseline: column('baseline', digestOrGenesis),
    verdict: column('verdict', (value) => oneOf(value, VERDICTS) as PublicationVerdict),
    security: column('security', (value) => oneOf(value, SECURITY) as SecurityResult),
    changes: column('changes', changesOf),
    checks: column('checks', checksOf),
    affected: column('affected', identityOf),
    approval: column('approval', approvalOf),
    resourceIndex: column('resource_index', digestOf),
    bucketDigest: column('bucket_digest', digestOf),
  });
}

/**
 * The stored `index_bucket` must be the bucket of the entry's resource. It is
 * outside the hash, so it is checked after the hash: a relabelled resource
 * is reported at `resource_id`'s hash, not at this derived column.
 */
export function checkIndexBucket(row: LedgerRow, entry: LedgerEntry): void {
  if (row.index_bucket !== String(indexBucketOf(entry.resource.id))) {
    throw tampered(entry.position, 'index_bucket');
  }
}

/**
 * Reads a row and checks what one entry proves alone: its hash covers its
 * columns, and its bytes have its digest. Decoding and the neighbours are
 * the callers' part.
 */
export function verifiedEntryOfRow(row: LedgerRow, expectedPosition: number): LedgerEntry {
  const entry = entryOfRow(row, expectedPosition);
  if (entryHashOf(entry) !== entry.entryHash) throw tampered(entry.position, 'entry_hash');
  if (sha256Prefixed(entry.projection) !== entry.digest) throw tampered(entry.position, 'projection');
  checkIndexBucket(row, entry);
  return entry;
}
