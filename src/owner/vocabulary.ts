import type { Sha256Hex } from '../core/digest/index.js';

/**
 * The closed vocabularies and grammars of the owner document and its
 * originals. Everything here is data: the rules that use it live beside the
 * values they check.
 */

declare const objectIdBrand: unique symbol;
declare const workloadIdBrand: unique symbol;
declare const guardIdBrand: unique symbol;

/** An object's ID inside one owner document; never a physical name. */
export type ObjectId = string & { readonly [objectIdBrand]: true };
export type WorkloadId = string & { readonly [workloadIdBrand]: true };
/** `connector:service_id:physical_subject_sha256`, the identity of one physical domain. */
export type GuardId = string & { readonly [guardIdBrand]: true };

export const CONNECTORS = ['clickhouse', 'mssql', 'postgresql'] as const;
export type Connector = (typeof CONNECTORS)[number];

/**
 * Aliases a legitimate original construction canonicalizes (createDbtRelationWrite).
 * On the wire only the canonical names are valid: an alias found in a decoded
 * or supplied original is a changed original, not something to normalize.
 */
export const CONNECTOR_ALIASES: Readonly<Record<string, Connector>> = Object.freeze({
  sqlserver: 'mssql',
  sql_server: 'mssql',
  postgres: 'postgresql',
  pg: 'postgresql',
});

export const OBJECT_KINDS = ['enum', 'sequence', 'table', 'view'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** The closed connector/kind matrix and the number of qualified-name parts. */
export const CONNECTOR_RULES: Readonly<
  Record<
    Connector,
    { readonly kinds: readonly ObjectKind[]; readonly parts: number; readonly maxPart: number }
  >
> = Object.freeze({
  mssql: { kinds: ['table', 'view'], parts: 3, maxPart: 128 },
  postgresql: { kinds: ['enum', 'sequence', 'table'], parts: 3, maxPart: 63 },
  clickhouse: { kinds: ['table'], parts: 2, maxPart: 128 },
});

/** One qualified-name part: a plain identifier, case retained; no quoting, dots, wildcards or SQL. */
export const NAME_PART = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const CLAIM_ROLES = ['source', 'target'] as const;
export type ClaimRole = (typeof CLAIM_ROLES)[number];

export const ACCESSES = ['read', 'write'] as const;
export type Access = (typeof ACCESSES)[number];

export const PURPOSES = ['helper', 'source', 'staging', 'state', 'target'] as const;
export type Purpose = (typeof PURPOSES)[number];

export const WRITE_KINDS = ['table', 'view'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

export const WRITE_ROLES = ['model', 'transfer_target', 'unit_test'] as const;
export type WriteRole = (typeof WRITE_ROLES)[number];

export const EXECUTION_CELLS = [
  'mssql_clickhouse_full_refresh_v1',
  'postgres_mssql_full_refresh_v1',
  'sqlserver_dbt_v1',
] as const;
export type ExecutionCell = (typeof EXECUTION_CELLS)[number];

export interface CellRule {
  /** The connector of every target claim (the domains the request resources name). */
  readonly target: Connector;
  /** Connectors a source (read-only in execution) claim may have. */
  readonly sources: readonly Connector[];
  readonly writeKinds: readonly WriteKind[];
  readonly writeRoles: readonly WriteRole[];
  /** Every workload reads at least one retained source of this connector and kind; null: no minimum. */
  readonly requiredRead: { readonly connector: Connector; readonly kinds: readonly ObjectKind[] } | null;
}

export const CELL_RULES: Readonly<Record<ExecutionCell, CellRule>> = Object.freeze({
  sqlserver_dbt_v1: {
    target: 'mssql',
    sources: ['mssql'],
    writeKinds: ['table', 'view'],
    writeRoles: ['model', 'unit_test'],
    requiredRead: null,
  },
  mssql_clickhouse_full_refresh_v1: {
    target: 'clickhouse',
    sources: ['mssql'],
    writeKinds: ['table'],
    writeRoles: ['transfer_target'],
    requiredRead: { connector: 'mssql', kinds: ['table', 'view'] },
  },
  postgres_mssql_full_refresh_v1: {
    target: 'mssql',
    sources: ['postgresql'],
    writeKinds: ['table'],
    writeRoles: ['transfer_target'],
    requiredRead: { connector: 'postgresql', kinds: ['table'] },
  },
});

/** IDs: object, workload, service, constituent, work item and runner invocation IDs. */
export const ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** A lowercase RFC 4122 UUID (versions 1–8, the RFC variant); the nil UUID is not an ID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const GUARD_ID = /^(?:clickhouse|mssql|postgresql):[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}:[0-9a-f]{64}$/;

export const EXECUTION_OWNER_KEY =
  /^execution:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const QUALIFICATION_OWNER_KEY =
  /^qualification:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function executionOwnerKey(activationId: string): string {
  return `execution:${activationId}`;
}

export function qualificationOwnerKey(qualificationRunId: string): string {
  return `qualification:${qualificationRunId}`;
}

/** The physical domain a claim, object or request resource belongs to. */
export interface DomainFields {
  readonly connector: Connector;
  readonly service_id: string;
  readonly physical_subject_sha256: Sha256Hex;
}

/** The guard of a physical domain: connector/service/physical subject, in that order. */
export function guardIdOf(domain: DomainFields): GuardId {
  return `${domain.connector}:${domain.service_id}:${domain.physical_subject_sha256}` as GuardId;
}
