import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../core/digest/index.js';
import { pyDumps } from '../core/json/index.js';
import { buildOwner, type Data, fakeSha256, type OwnerSpec, toCanonical } from './fixtures/build.js';
import { CELL_SPECS } from './fixtures/cells.js';
import { get, indexWhere, list, type Mutable, record, remove, set } from './fixtures/json-path.js';
import { decodeData, decodeRaw, outcomeOf, summary } from './fixtures/outcome.js';
import { type ExecutionCell, guardIdOf, SCOPED_EXECUTION_REASONS, ScopedExecutionOwner } from './index.js';

/**
 * One fixture per rule: each starts from a valid owner of one execution
 * cell and breaks exactly that rule, either by editing the built document
 * (what a changed original looks like) or by describing a consistent
 * producer input that the rule forbids (so every derived digest still
 * agrees and only the rule itself can refuse). Each expects the reason and
 * the allowlisted field the codec names.
 */

const SQL: ExecutionCell = 'sqlserver_dbt_v1';
const CH: ExecutionCell = 'mssql_clickhouse_full_refresh_v1';
const PG: ExecutionCell = 'postgres_mssql_full_refresh_v1';

type Edit = (doc: Data) => void;
type SpecEdit = (spec: Mutable<OwnerSpec>) => void;

interface Rule {
  readonly rule: string;
  readonly cell: ExecutionCell;
  readonly edit?: Edit;
  readonly spec?: SpecEdit;
  /** Byte-level edits of the canonical document (as text, or as bytes). */
  readonly bytes?: (canonical: string) => string | Buffer;
  readonly expected: string;
}

function built(cell: ExecutionCell, specEdit?: SpecEdit): Data {
  const spec = structuredClone(CELL_SPECS[cell]) as Mutable<OwnerSpec>;
  specEdit?.(spec);
  return buildOwner(spec as OwnerSpec).owner;
}

function objectIndex(doc: Data, id: string): number {
  return indexWhere(list(doc, 'objects'), 'object_id', id);
}

function workloadIndex(doc: Data, id: string): number {
  return indexWhere(list(doc, 'workloads'), 'workload_id', id);
}

function claimIndex(doc: Data, serviceId: string): number {
  return indexWhere(list(doc, 'claims'), 'service_id', serviceId);
}

function guardOfClaim(doc: Data, serviceId: string): string {
  return guardIdOf(record(doc, 'claims', claimIndex(doc, serviceId)) as never);
}

function domainObjects(spec: Mutable<OwnerSpec>, key: string) {
  const domain = spec.domains.find((entry) => entry.key === key);
  if (domain === undefined) throw new Error('no such domain');
  return domain.objects;
}

function workloadSpec(spec: Mutable<OwnerSpec>, id: string) {
  const workload = spec.workloads.find((entry) => entry.id === id);
  if (workload === undefined) throw new Error('no such workload');
  return workload;
}

function swap(array: unknown[], i: number, j: number): void {
  const a = array[i];
  array[i] = array[j];
  array[j] = a;
}

const RULES: readonly Rule[] = [
  // ── the document as a whole ──
  {
    rule: 'canonical bytes: whitespace between tokens',
    cell: SQL,
    bytes: (t) => t.replace('{"claims"', '{ "claims"'),
    expected: 'scoped_execution_document@canonical_form',
  },
  {
    rule: 'canonical bytes: keys in another order',
    cell: SQL,
    // The same members with `schema` first: valid JSON, valid content, not the canonical order.
    bytes: (t) => {
      const { schema, ...rest } = JSON.parse(t) as Record<string, unknown>;
      const reordered = JSON.stringify({ schema, ...rest });
      expect(JSON.parse(reordered)).toEqual(JSON.parse(t));
      return reordered;
    },
    expected: 'scoped_execution_document@canonical_form',
  },
  {
    rule: 'canonical bytes: a trailing newline',
    cell: SQL,
    bytes: (t) => `${t}\n`,
    expected: 'scoped_execution_document@canonical_form',
  },
  {
    rule: 'canonical bytes: an escape Python would not write',
    cell: SQL,
    bytes: (t) => t.replace('"analytics"', '"\\u0061nalytics"'),
    expected: 'scoped_execution_document@canonical_form',
  },
  {
    rule: 'strict JSON: a duplicated field',
    cell: SQL,
    bytes: (t) => t.replace('{"claims":', '{"schema":"x","claims":'),
    expected: 'scoped_execution_document',
  },
  {
    rule: 'strict JSON: non-finite numbers',
    cell: SQL,
    bytes: (t) => t.replace(/"size_bytes":4096/, '"size_bytes":NaN'),
    expected: 'scoped_execution_document',
  },
  {
    rule: 'strict JSON: invalid UTF-8',
    cell: SQL,
    bytes: (t) => {
      const raw = Buffer.from(t, 'utf8');
      raw[raw.indexOf('analytics') + 2] = 0xff;
      return raw;
    },
    expected: 'scoped_execution_document',
  },
  {
    rule: 'regression: an unknown top-level field, placed at top_level_keys',
    cell: SQL,
    edit: (d) => set(d, ['authorized'], true),
    expected: 'scoped_execution_document@top_level_keys',
  },
  {
    rule: 'a missing top-level field',
    cell: SQL,
    edit: (d) => remove(d, ['scope_sha256']),
    expected: 'scoped_execution_document@scope_sha256',
  },
  {
    rule: 'a stored owner hash (no duplicated request/owner hash)',
    cell: SQL,
    edit: (d) => set(d, ['request_sha256'], fakeSha256('r')),
    expected: 'scoped_execution_document@top_level_keys',
  },
  {
    rule: 'another schema',
    cell: SQL,
    edit: (d) => set(d, ['schema'], 'dpone.composition-scoped-execution-owner.v2'),
    expected: 'scoped_execution_document@schema',
  },
  {
    rule: 'scope digest not lowercase hex',
    cell: SQL,
    edit: (d) => set(d, ['scope_sha256'], String(get(d, 'scope_sha256')).toUpperCase()),
    expected: 'scoped_execution_document@scope_sha256',
  },
  {
    rule: 'the top level is not an object',
    cell: SQL,
    bytes: () => '[]',
    expected: 'scoped_execution_document',
  },

  // ── objects ──
  {
    rule: 'kind matrix: ClickHouse has no views',
    cell: CH,
    edit: (d) => set(d, ['objects', objectIndex(d, 'ch_invoices'), 'object_kind'], 'view'),
    expected: 'scoped_execution_object@objects[].object_kind',
  },
  {
    rule: 'kind matrix: MSSQL has no sequences',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'object_kind'], 'sequence'),
    expected: 'scoped_execution_object@objects[].object_kind',
  },
  {
    rule: 'kind matrix: an unknown kind',
    cell: PG,
    edit: (d) => set(d, ['objects', objectIndex(d, 'pg_orders'), 'object_kind'], 'materialized_view'),
    expected: 'scoped_execution_object@objects[].object_kind',
  },
  {
    rule: 'closed connectors: an unknown connector',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'connector'], 'oracle'),
    expected: 'scoped_execution_object@objects[].connector',
  },
  {
    rule: 'closed connectors: an alias is not a connector on the wire',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'connector'], 'sqlserver'),
    expected: 'scoped_execution_object@objects[].connector',
  },
  {
    rule: 'implicit search path: a two-part PostgreSQL name',
    cell: PG,
    spec: (s) => {
      domainObjects(s, 'app')[1] = {
        ...domainObjects(s, 'app')[1],
        name: ['public', 'order_status'],
      } as never;
    },
    expected: 'scoped_execution_object@objects[].qualified_name',
  },
  {
    rule: 'three separate parts: a dotted part',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['objects', objectIndex(d, 'helper_calendar'), 'qualified_name'],
        ['Warehouse', 'util.Calendar', 'x'],
      ),
    expected: 'scoped_execution_object@objects[].qualified_name[]',
  },
  {
    rule: 'two separate parts: a three-part ClickHouse name',
    cell: CH,
    edit: (d) =>
      set(
        d,
        ['objects', objectIndex(d, 'ch_transfer_state'), 'qualified_name'],
        ['lake', 'default', 'transfer_state'],
      ),
    expected: 'scoped_execution_object@objects[].qualified_name',
  },
  {
    rule: 'no SQL fragments in a part',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'qualified_name', 2], 'Calendar;DROP'),
    expected: 'scoped_execution_object@objects[].qualified_name[]',
  },
  {
    rule: 'no quoted identifiers',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'qualified_name', 2], '[Calendar]'),
    expected: 'scoped_execution_object@objects[].qualified_name[]',
  },
  {
    rule: 'no wildcard names',
    cell: PG,
    edit: (d) => set(d, ['objects', objectIndex(d, 'pg_order_status'), 'qualified_name', 2], '*'),
    expected: 'scoped_execution_object@objects[].qualified_name[]',
  },
  {
    rule: 'no pattern wildcards',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'qualified_name', 1], 'util%'),
    expected: 'scoped_execution_object@objects[].qualified_name[]',
  },
  {
    rule: 'a part starts with a letter or underscore',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'qualified_name', 1], '1util'),
    expected: 'scoped_execution_object@objects[].qualified_name[]',
  },
  {
    rule: 'objects ascending by object ID',
    cell: SQL,
    edit: (d) => swap(list(d, 'objects'), 0, 1),
    expected: 'scoped_execution_object@objects',
  },
  {
    rule: 'an object ID of the ID grammar',
    cell: SQL,
    edit: (d) => set(d, ['objects', objectIndex(d, 'helper_calendar'), 'object_id'], 'helper calendar'),
    expected: 'scoped_execution_object@objects[].object_id',
  },
  {
    rule: 'identity: two object IDs cannot split one connector/service/domain/subject',
    cell: SQL,
    edit: (d) => {
      // helper_calendar takes raw_orders' subject; its own subject leaves the claim, so only the split remains.
      const target = claimIndex(d, 'mssql-dev-01');
      const own = get(d, 'objects', objectIndex(d, 'helper_calendar'), 'subject_sha256');
      set(
        d,
        ['objects', objectIndex(d, 'helper_calendar'), 'subject_sha256'],
        get(d, 'objects', objectIndex(d, 'raw_orders'), 'subject_sha256'),
      );
      set(
        d,
        ['claims', target, 'read_subjects'],
        list(d, 'claims', target, 'read_subjects').filter((s) => s !== own),
      );
    },
    expected: 'scoped_execution_object@objects',
  },
  {
    rule: 'identity: two object IDs cannot duplicate a qualified coordinate',
    cell: SQL,
    spec: (s) => {
      const objects = domainObjects(s, 'warehouse');
      const index = objects.findIndex((o) => o.id === 'helper_calendar');
      objects[index] = { ...objects[index], name: ['Warehouse', 'raw', 'Orders'] } as never;
    },
    expected: 'scoped_execution_object@objects',
  },
  {
    rule: 'coverage: an object of a domain no claim names',
    cell: SQL,
    spec: (s) => {
      s.domains.push({
        key: 'orphan',
        connector: 'mssql',
        serviceId: 'mssql-orphan',
        role: 'source',
        qualificationEpoch: 3n,
        objects: [{ id: 'orphan_table', kind: 'table', name: ['Orphan', 'dbo', 'T'], read: true }],
      });
    },
    edit: (d) => {
      const i = claimIndex(d, 'mssql-orphan');
      remove(d, ['claims', i]);
      remove(d, [
        'observations',
        indexWhere(
          list(d, 'observations'),
          'guard_id',
          guardIdOf(record(d, 'objects', objectIndex(d, 'orphan_table')) as never),
        ),
      ]);
      remove(d, [
        'handoff',
        'epochs',
        indexWhere(
          list(d, 'handoff', 'epochs'),
          'guard_id',
          guardIdOf(record(d, 'objects', objectIndex(d, 'orphan_table')) as never),
        ),
      ]);
    },
    expected: 'scoped_execution_object@objects',
  },
  {
    rule: 'coverage: an object that is no subject of its claim',
    cell: SQL,
    edit: (d) => {
      const i = claimIndex(d, 'mssql-dev-01');
      const own = get(d, 'objects', objectIndex(d, 'helper_calendar'), 'subject_sha256');
      set(
        d,
        ['claims', i, 'read_subjects'],
        list(d, 'claims', i, 'read_subjects').filter((s) => s !== own),
      );
    },
    expected: 'scoped_execution_object@objects',
  },
  {
    rule: 'coverage: a claim subject no object declares',
    cell: SQL,
    edit: (d) => {
      const i = claimIndex(d, 'mssql-dev-01');
      set(d, ['claims', i, 'read_subjects'], [...list(d, 'claims', i, 'read_subjects'), 'f'.repeat(64)]);
    },
    expected: 'scoped_execution_object@objects',
  },
  {
    rule: 'retained source IDs ascending',
    cell: CH,
    edit: (d) => swap(list(d, 'retained_source_ids'), 0, 1),
    expected: 'scoped_execution_object@retained_source_ids',
  },
  {
    rule: 'retained source IDs without duplicates',
    cell: CH,
    edit: (d) => set(d, ['retained_source_ids', 1], get(d, 'retained_source_ids', 0)),
    expected: 'scoped_execution_object@retained_source_ids',
  },
  {
    rule: 'a retained source is a declared object',
    cell: CH,
    edit: (d) => set(d, ['retained_source_ids', 1], 'erp_zz_missing'),
    expected: 'scoped_execution_object@retained_source_ids[]',
  },
  {
    rule: 'a retained source is read within its claim',
    cell: SQL,
    spec: (s) => {
      const o = domainObjects(s, 'warehouse').find((x) => x.id === 'test_orders');
      if (o) o.retained = true;
      s.seals = [['crm_customers'], ['raw_orders', 'test_orders']];
    },
    expected: 'scoped_execution_object@retained_source_ids[]',
  },

  // ── claims (owner) ──
  {
    rule: 'claims ascending by guard',
    cell: SQL,
    edit: (d) => swap(list(d, 'claims'), 0, 1),
    expected: 'scoped_execution_owner@claims',
  },
  {
    rule: 'a claim names at least one subject',
    cell: SQL,
    edit: (d) => {
      const i = claimIndex(d, 'mssql-crm-01');
      set(d, ['claims', i, 'read_subjects'], []);
    },
    expected: 'scoped_execution_owner@claims[]',
  },
  {
    rule: 'claim subjects ascending',
    cell: SQL,
    edit: (d) => swap(list(d, 'claims', claimIndex(d, 'mssql-dev-01'), 'read_subjects'), 0, 1),
    expected: 'scoped_execution_owner@claims[].read_subjects',
  },
  {
    rule: 'claim subjects without duplicates',
    cell: SQL,
    edit: (d) => {
      const s = list(d, 'claims', claimIndex(d, 'mssql-dev-01'), 'write_subjects');
      s.splice(1, 0, s[0]);
    },
    expected: 'scoped_execution_owner@claims[].write_subjects',
  },
  {
    rule: 'a claim role is source or target',
    cell: SQL,
    edit: (d) => set(d, ['claims', claimIndex(d, 'mssql-crm-01'), 'role'], 'helper'),
    expected: 'scoped_execution_owner@claims[].role',
  },
  {
    rule: 'a claim has exactly its fields (no authority boolean)',
    cell: SQL,
    edit: (d) => set(d, ['claims', 0, 'authorized'], true),
    expected: 'scoped_execution_owner@claims[]',
  },
  {
    rule: 'cell: a target claim has the cell target connector',
    cell: CH,
    edit: (d) => set(d, ['claims', claimIndex(d, 'mssql-erp'), 'role'], 'target'),
    expected: 'scoped_execution_owner@claims[].connector',
  },
  {
    rule: 'cell: a source claim has a cell source connector',
    cell: SQL,
    spec: (s) => {
      s.domains.push({
        key: 'pg',
        connector: 'postgresql',
        serviceId: 'pg-side',
        role: 'source',
        qualificationEpoch: 5n,
        objects: [
          { id: 'pg_side', kind: 'table', name: ['side', 'public', 't'], read: true, retained: true },
        ],
      });
    },
    expected: 'scoped_execution_owner@claims[].connector',
  },
  {
    rule: 'the target claims are exactly the request resources',
    cell: SQL,
    edit: (d) => set(d, ['claims', claimIndex(d, 'mssql-crm-01'), 'role'], 'target'),
    expected: 'scoped_execution_owner@claims',
  },

  // ── observations ──
  {
    rule: "an observation's digest is its claim's observation digest",
    cell: SQL,
    edit: (d) => set(d, ['observations', 0, 'original', 'sha256'], fakeSha256('other observation')),
    expected: 'scoped_execution_observation@observations[].original.sha256',
  },
  {
    rule: 'an observation names every object ID of its domain',
    cell: SQL,
    edit: (d) => {
      const i = indexWhere(list(d, 'observations'), 'guard_id', guardOfClaim(d, 'mssql-dev-01'));
      list(d, 'observations', i, 'object_ids').pop();
    },
    expected: 'scoped_execution_observation@observations[].object_ids',
  },
  {
    rule: 'an observation names only object IDs of its domain',
    cell: SQL,
    edit: (d) => {
      const i = indexWhere(list(d, 'observations'), 'guard_id', guardOfClaim(d, 'mssql-crm-01'));
      list(d, 'observations', i, 'object_ids').push('dim_customers');
    },
    expected: 'scoped_execution_observation@observations[].object_ids',
  },
  {
    rule: 'exactly one observation per claim',
    cell: SQL,
    edit: (d) => remove(d, ['observations', 0]),
    expected: 'scoped_execution_observation@observations',
  },
  {
    rule: 'an observation names a claimed guard',
    cell: SQL,
    edit: (d) => set(d, ['observations', 0, 'guard_id'], `mssql:mssql-zz:${'0'.repeat(64)}`),
    expected: 'scoped_execution_observation@observations[].guard_id',
  },
  {
    rule: 'observations ascending by guard',
    cell: SQL,
    edit: (d) => swap(list(d, 'observations'), 0, 1),
    expected: 'scoped_execution_observation@observations',
  },
  {
    rule: 'observation descriptor paths are unique',
    cell: SQL,
    edit: (d) =>
      set(d, ['observations', 1, 'original', 'path'], get(d, 'observations', 0, 'original', 'path')),
    expected: 'scoped_execution_observation@observations',
  },
  {
    rule: 'a descriptor path is relative',
    cell: SQL,
    edit: (d) => set(d, ['observations', 0, 'original', 'path'], '/evidence/observations/a.json'),
    expected: 'scoped_execution_observation@observations[].original.path',
  },
  {
    rule: 'a descriptor path does not climb',
    cell: SQL,
    edit: (d) => set(d, ['observations', 0, 'original', 'path'], 'evidence/../a.json'),
    expected: 'scoped_execution_observation@observations[].original.path',
  },
  {
    rule: 'a descriptor size is a positive integer',
    cell: SQL,
    edit: (d) => set(d, ['observations', 0, 'original', 'size_bytes'], 0),
    expected: 'scoped_execution_observation@observations[].original.size_bytes',
  },
  {
    rule: 'a descriptor size is not a float',
    cell: SQL,
    bytes: (t) => t.replace('"size_bytes":4096', '"size_bytes":4096.0'),
    expected: 'scoped_execution_observation@observations[].original.size_bytes',
  },
  {
    rule: 'the exact request resource matches its execution claim and observation',
    cell: CH,
    edit: (d) => set(d, ['request', 'resources', 0, 'observation_sha256'], fakeSha256('stale')),
    expected: 'scoped_execution_observation@request.resources[].observation_sha256',
  },

  // ── workloads and effects ──
  {
    rule: 'workloads are exactly the request workloads',
    cell: SQL,
    edit: (d) => remove(d, ['workloads', workloadIndex(d, 'unit_tests')]),
    expected: 'scoped_execution_workload@workloads',
  },
  {
    rule: 'workload IDs are the request workload IDs',
    cell: SQL,
    edit: (d) => set(d, ['workloads', workloadIndex(d, 'unit_tests'), 'workload_id'], 'unit_tests_2'),
    expected: 'scoped_execution_workload@workloads',
  },
  {
    rule: 'effects ascending by object/access/purpose',
    cell: SQL,
    edit: (d) => swap(list(d, 'workloads', workloadIndex(d, 'nightly'), 'effects'), 4, 5),
    expected: 'scoped_execution_workload@workloads[].effects',
  },
  {
    rule: 'effects without duplicate triples',
    cell: SQL,
    edit: (d) => {
      const e = list(d, 'workloads', workloadIndex(d, 'nightly'), 'effects');
      e.splice(1, 0, e[0]);
    },
    expected: 'scoped_execution_workload@workloads[].effects',
  },
  {
    rule: 'an effect names a declared object',
    cell: SQL,
    edit: (d) =>
      set(d, ['workloads', workloadIndex(d, 'nightly'), 'effects', 0, 'object_id'], 'a_missing_object'),
    expected: 'scoped_execution_workload@workloads[].effects[].object_id',
  },
  {
    rule: 'an effect access is read or write',
    cell: SQL,
    edit: (d) => set(d, ['workloads', workloadIndex(d, 'nightly'), 'effects', 0, 'access'], 'admin'),
    expected: 'scoped_execution_workload@workloads[].effects[].access',
  },
  {
    rule: 'an effect purpose is one of the closed purposes',
    cell: SQL,
    edit: (d) => set(d, ['workloads', workloadIndex(d, 'nightly'), 'effects', 0, 'purpose'], 'audit'),
    expected: 'scoped_execution_workload@workloads[].effects[].purpose',
  },
  {
    rule: 'a read belongs to the qualified read scope',
    cell: SQL,
    spec: (s) => {
      workloadSpec(s, 'unit_tests').effects.push(['dim_customers', 'read', 'source']);
    },
    expected: 'scoped_execution_workload@workloads[].effects[].access',
  },
  {
    rule: 'a write belongs to the qualified write scope',
    cell: SQL,
    spec: (s) => {
      workloadSpec(s, 'unit_tests').effects.push(['helper_calendar', 'write', 'helper']);
    },
    expected: 'scoped_execution_workload@workloads[].effects[].access',
  },
  {
    rule: 'execution never writes a source claim (qualification-only writes)',
    cell: PG,
    spec: (s) => {
      workloadSpec(s, 'orders').effects.push(['pg_order_status', 'write', 'state']);
    },
    expected: 'scoped_execution_workload@workloads[].effects[].access',
  },
  {
    rule: 'execution never writes a retained source',
    cell: SQL,
    spec: (s) => {
      const o = domainObjects(s, 'warehouse').find((x) => x.id === 'seed_countries');
      if (o) o.retained = true;
      s.seals = [['crm_customers'], ['raw_orders', 'seed_countries']];
      workloadSpec(s, 'nightly').effects.push(['seed_countries', 'write', 'state']);
    },
    expected: 'scoped_execution_workload@workloads[].effects[].access',
  },
  {
    rule: 'mssql_clickhouse: every workload reads a retained MSSQL table or view',
    cell: CH,
    spec: (s) => {
      const w = workloadSpec(s, 'invoices');
      w.effects = w.effects.filter(([o]) => o !== 'erp_invoices');
    },
    expected: 'scoped_execution_workload@workloads[].effects',
  },
  {
    rule: 'postgres_mssql: a retained enum is no retained table',
    cell: PG,
    spec: (s) => {
      const app = domainObjects(s, 'app');
      const e = app.find((x) => x.id === 'pg_order_status');
      if (e) e.retained = true;
      const w = workloadSpec(s, 'orders');
      w.effects = w.effects.filter(([o]) => o !== 'pg_orders');
      s.seals = [['pg_order_status', 'pg_orders']];
    },
    expected: 'scoped_execution_workload@workloads[].effects',
  },
  {
    rule: 'postgres_mssql: a non-retained PostgreSQL table does not count',
    cell: PG,
    spec: (s) => {
      const app = domainObjects(s, 'app');
      app.push({ id: 'pg_scratch', kind: 'table', name: ['app', 'public', 'scratch'], read: true });
      const w = workloadSpec(s, 'orders');
      w.effects = [...w.effects.filter(([o]) => o !== 'pg_orders'), ['pg_scratch', 'read', 'source']];
    },
    expected: 'scoped_execution_workload@workloads[].effects',
  },

  // ── genuine write bindings ──
  {
    rule: 'an embedded canonical connector later changed to an alias',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'write', 'connector'],
        'sqlserver',
      ),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write.connector',
  },
  {
    rule: 'the original write keeps all ten fields (role explicit)',
    cell: SQL,
    edit: (d) =>
      remove(d, ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'write', 'role']),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write.role',
  },
  {
    rule: 'the original write has no other field',
    cell: SQL,
    edit: (d) =>
      set(d, ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'write', 'alias'], 'x'),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write',
  },
  {
    rule: 'the original write database is a string or null',
    cell: SQL,
    edit: (d) =>
      set(d, ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'write', 'database'], 7),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write.database',
  },
  {
    rule: 'the original write fields are plain non-empty strings',
    cell: SQL,
    edit: (d) =>
      set(d, ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'write', 'project_path'], ''),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write.project_path',
  },
  {
    rule: 'the original write fields hold no control characters',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'write', 'workflow_id'],
        'a\u0007b',
      ),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write.workflow_id',
  },
  {
    rule: 'a write names its object exactly (no lexical alias)',
    cell: SQL,
    spec: (s) => {
      workloadSpec(s, 'unit_tests').writes[0] = {
        object: 'test_orders',
        role: 'unit_test',
        relation: 'ordersunit',
      };
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write',
  },
  {
    rule: 'a write has its object kind',
    cell: SQL,
    spec: (s) => {
      workloadSpec(s, 'unit_tests').writes[0] = { object: 'test_orders', role: 'unit_test', kind: 'view' };
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write',
  },
  {
    rule: 'cell: a transfer writes transfer targets',
    cell: CH,
    spec: (s) => {
      workloadSpec(s, 'invoices').writes[0] = { object: 'ch_invoices', role: 'model' };
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write',
  },
  {
    rule: 'cell: dbt writes models and unit tests',
    cell: SQL,
    spec: (s) => {
      workloadSpec(s, 'unit_tests').writes[0] = { object: 'test_orders', role: 'transfer_target' };
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].write',
  },
  {
    rule: 'different legacy writes never map to one object',
    cell: SQL,
    spec: (s) => {
      workloadSpec(s, 'unit_tests').writes.push({
        object: 'test_orders',
        role: 'unit_test',
        projectPath: 'other',
      });
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].object_id',
  },
  {
    rule: 'a purpose never grants write access',
    cell: SQL,
    spec: (s) => {
      const o = domainObjects(s, 'warehouse').find((x) => x.id === 'test_orders');
      if (o) o.read = true;
      workloadSpec(s, 'unit_tests').effects = [['test_orders', 'read', 'target']];
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].object_id',
  },
  {
    rule: 'a binding names a declared object',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['workloads', workloadIndex(d, 'unit_tests'), 'write_bindings', 0, 'object_id'],
        'no_such_object',
      ),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings[].object_id',
  },
  {
    rule: 'bindings ascending by legacy write subject',
    cell: SQL,
    edit: (d) => swap(list(d, 'workloads', workloadIndex(d, 'nightly'), 'write_bindings'), 0, 1),
    expected: 'scoped_execution_write_binding@workloads[].write_bindings',
  },
  {
    rule: 'the bridge reproduces the request workload partition',
    cell: SQL,
    edit: (d) => {
      // The request loses one logical write that the owner still binds.
      const g = list(
        d,
        'request',
        'workloads',
        indexWhere(list(d, 'request', 'workloads'), 'workload_id', 'nightly'),
        'writes',
        0,
        'logical_write_sha256s',
      );
      g.pop();
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings',
  },
  {
    rule: 'the bridge is total: a request write without a binding',
    cell: SQL,
    edit: (d) => {
      const w = workloadIndex(d, 'nightly');
      const bindings = list(d, 'workloads', w, 'write_bindings');
      const dropped = bindings.pop() as Data;
      const effects = list(d, 'workloads', w, 'effects');
      effects.splice(indexWhere(effects, 'object_id', dropped.object_id), 1);
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings',
  },
  {
    rule: 'the bridge keeps each write in its request workload',
    cell: SQL,
    spec: (s) => {
      // The owner binds test_orders in nightly; the request (built separately) has it in unit_tests.
      workloadSpec(s, 'nightly').effects.push(['test_orders', 'write', 'target']);
    },
    edit: (d) => {
      const from = workloadIndex(d, 'unit_tests');
      const to = workloadIndex(d, 'nightly');
      const moved = list(d, 'workloads', from, 'write_bindings').pop();
      const target = list(d, 'workloads', to, 'write_bindings');
      target.push(moved);
      target.sort((a, b) =>
        sha256Hex(pyDumps((a as Data).write)) < sha256Hex(pyDumps((b as Data).write)) ? -1 : 1,
      );
    },
    expected: 'scoped_execution_write_binding@workloads[].write_bindings',
  },

  // ── handoff ──
  {
    rule: 'the execution epoch is exactly the qualification epoch plus one',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'epochs', 0, 'execution_epoch'],
        BigInt(get(d, 'handoff', 'epochs', 0, 'qualification_epoch') as bigint) + 2n,
      ),
    expected: 'scoped_execution_handoff@handoff.epochs[].execution_epoch',
  },
  {
    rule: 'an epoch never moves backwards',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'epochs', 0, 'execution_epoch'],
        get(d, 'handoff', 'epochs', 0, 'qualification_epoch'),
      ),
    expected: 'scoped_execution_handoff@handoff.epochs[].execution_epoch',
  },
  {
    rule: 'the qualification epoch is at least 1',
    cell: SQL,
    edit: (d) => {
      set(d, ['handoff', 'epochs', 0, 'qualification_epoch'], 0n);
      set(d, ['handoff', 'epochs', 0, 'execution_epoch'], 1n);
    },
    expected: 'scoped_execution_handoff@handoff.epochs[].qualification_epoch',
  },
  {
    rule: 'an epoch is an integer, not a string',
    cell: SQL,
    edit: (d) => set(d, ['handoff', 'epochs', 0, 'qualification_epoch'], '7'),
    expected: 'scoped_execution_handoff@handoff.epochs[].qualification_epoch',
  },
  {
    rule: 'an epoch is an integer, not a float',
    cell: SQL,
    bytes: (t) => t.replace('"execution_epoch":8,', '"execution_epoch":8.0,'),
    expected: 'scoped_execution_handoff@handoff.epochs[].execution_epoch',
  },
  {
    rule: 'an epoch is an integer, not an exponent',
    cell: SQL,
    bytes: (t) => t.replace('"execution_epoch":8,', '"execution_epoch":8e0,'),
    expected: 'scoped_execution_handoff@handoff.epochs[].execution_epoch',
  },
  {
    rule: 'epoch moves are the complete owner partition',
    cell: SQL,
    edit: (d) => remove(d, ['handoff', 'epochs', 0]),
    expected: 'scoped_execution_handoff@handoff.epochs',
  },
  {
    rule: 'an epoch move names a claimed guard',
    cell: SQL,
    edit: (d) => set(d, ['handoff', 'epochs', 0, 'guard_id'], `mssql:mssql-zz:${'0'.repeat(64)}`),
    expected: 'scoped_execution_handoff@handoff.epochs[].guard_id',
  },
  {
    rule: 'epoch moves ascending by guard',
    cell: SQL,
    edit: (d) => swap(list(d, 'handoff', 'epochs'), 0, 1),
    expected: 'scoped_execution_handoff@handoff.epochs',
  },
  {
    rule: 'no additional-acquisition field',
    cell: SQL,
    edit: (d) => set(d, ['handoff', 'additional_acquisitions'], []),
    expected: 'scoped_execution_handoff@handoff',
  },
  {
    rule: 'the qualification owner key is qualification:<run UUID>',
    cell: SQL,
    edit: (d) => set(d, ['handoff', 'qualification_owner_key'], 'qualification:run-1'),
    expected: 'scoped_execution_handoff@handoff.qualification_owner_key',
  },
  {
    rule: 'a seal embeds a source_seal operation',
    cell: SQL,
    edit: (d) => set(d, ['handoff', 'source_seals', 0, 'operation', 'action'], 'fixture_load'),
    expected: 'scoped_execution_handoff@handoff.source_seals[].operation.action',
  },
  {
    rule: 'the operation is complete (all thirteen fields)',
    cell: SQL,
    edit: (d) => remove(d, ['handoff', 'source_seals', 0, 'operation', 'try_number']),
    expected: 'scoped_execution_handoff@handoff.source_seals[].operation.try_number',
  },
  {
    rule: "the operation's owner key names its qualification run",
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'source_seals', 0, 'operation', 'qualification_run_id'],
        '00000000-0000-4000-8000-000000000000',
      ),
    expected: 'scoped_execution_handoff@handoff.source_seals[].operation.owner_key',
  },
  {
    rule: "the operation's owner subject matches the handoff",
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'source_seals', 0, 'operation', 'owner_subject_sha256'],
        fakeSha256('another owner'),
      ),
    expected: 'scoped_execution_handoff@handoff.source_seals[].operation.owner_subject_sha256',
  },
  {
    rule: "the operation's old epochs match the handoff",
    cell: SQL,
    edit: (d) => {
      const g = list(d, 'handoff', 'source_seals', 0, 'operation', 'guard_epochs');
      set(g, [0, 'epoch'], BigInt(get(g, 0, 'epoch') as bigint) + 1n);
    },
    expected: 'scoped_execution_handoff@handoff.source_seals[].operation.guard_epochs',
  },
  {
    rule: 'the operation selects every named source guard',
    cell: SQL,
    spec: (s) => {
      s.seals = [['crm_customers', 'raw_orders']];
    },
    edit: (d) => {
      const g = list(d, 'handoff', 'source_seals', 0, 'operation', 'guard_epochs');
      g.pop();
    },
    expected: 'scoped_execution_handoff@handoff.source_seals[].operation.guard_epochs',
  },
  {
    rule: 'every retained source occurs in a seal',
    cell: SQL,
    spec: (s) => {
      s.seals = [['crm_customers']];
    },
    expected: 'scoped_execution_handoff@handoff.source_seals',
  },
  {
    rule: 'every retained source occurs exactly once',
    cell: SQL,
    spec: (s) => {
      s.seals = [['crm_customers'], ['crm_customers', 'raw_orders']];
    },
    expected: 'scoped_execution_handoff@handoff.source_seals[].source_object_ids',
  },
  {
    rule: 'seal sources are retained sources',
    cell: SQL,
    spec: (s) => {
      s.seals = [['crm_customers'], ['helper_calendar', 'raw_orders']];
    },
    expected: 'scoped_execution_handoff@handoff.source_seals[].source_object_ids',
  },
  {
    rule: 'seal source IDs ascending',
    cell: SQL,
    spec: (s) => {
      s.seals = [['crm_customers', 'raw_orders']];
    },
    edit: (d) => swap(list(d, 'handoff', 'source_seals', 0, 'source_object_ids'), 0, 1),
    expected: 'scoped_execution_handoff@handoff.source_seals[].source_object_ids',
  },
  {
    rule: 'seals ascending by operation digest',
    cell: SQL,
    edit: (d) => swap(list(d, 'handoff', 'source_seals'), 0, 1),
    expected: 'scoped_execution_handoff@handoff.source_seals',
  },
  {
    rule: 'seal paths are unique',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'source_seals', 1, 'original', 'path'],
        get(d, 'handoff', 'source_seals', 0, 'original', 'path'),
      ),
    expected: 'scoped_execution_handoff@handoff.source_seals[].original.path',
  },
  {
    rule: 'seal digests are unique',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'source_seals', 1, 'original', 'sha256'],
        get(d, 'handoff', 'source_seals', 0, 'original', 'sha256'),
      ),
    expected: 'scoped_execution_handoff@handoff.source_seals[].original.sha256',
  },
  {
    rule: 'a seal path is never an observation path',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'source_seals', 0, 'original', 'path'],
        get(d, 'observations', 0, 'original', 'path'),
      ),
    expected: 'scoped_execution_handoff@handoff.source_seals[].original.path',
  },
  {
    rule: 'a seal digest is never an observation digest',
    cell: SQL,
    edit: (d) =>
      set(
        d,
        ['handoff', 'source_seals', 0, 'original', 'sha256'],
        get(d, 'observations', 0, 'original', 'sha256'),
      ),
    expected: 'scoped_execution_handoff@handoff.source_seals[].original.sha256',
  },

  // ── the embedded request R (its own codec) ──
  {
    rule: 'request: exactly its fields',
    cell: SQL,
    edit: (d) => set(d, ['request', 'owner_sha256'], fakeSha256('x')),
    expected: 'scoped_execution_originals@request',
  },
  {
    rule: 'request: its schema',
    cell: SQL,
    edit: (d) => set(d, ['request', 'schema'], 'dpone.nonproduction-activation-request.v2'),
    expected: 'scoped_execution_originals@request.schema',
  },
  {
    rule: 'request: a known execution cell',
    cell: SQL,
    edit: (d) => set(d, ['request', 'execution_cell'], 'snowflake_dbt_v1'),
    expected: 'scoped_execution_originals@request.execution_cell',
  },
  {
    rule: 'request: the activation ID is a UUID (not nil)',
    cell: SQL,
    edit: (d) => set(d, ['request', 'activation_id'], '00000000-0000-0000-0000-000000000000'),
    expected: 'scoped_execution_originals@request.activation_id',
  },
  {
    rule: 'request: every resource receives a write',
    cell: SQL,
    edit: (d) =>
      list(d, 'request', 'resources').push({
        connector: 'mssql',
        service_id: 'zz-unused',
        physical_subject_sha256: fakeSha256('u'),
        observation_sha256: fakeSha256('o'),
      }),
    expected: 'scoped_execution_originals@request.resources',
  },
  {
    rule: 'request: a write group names a resource',
    cell: SQL,
    edit: (d) =>
      set(d, ['request', 'workloads', 0, 'writes', 0, 'guard_id'], `mssql:mssql-zz:${'0'.repeat(64)}`),
    expected: 'scoped_execution_originals@request.workloads[].writes[].guard_id',
  },
  {
    rule: 'request: a logical write belongs to one workload',
    cell: SQL,
    edit: (d) =>
      list(d, 'request', 'workloads', 1, 'writes', 0, 'logical_write_sha256s').unshift(
        get(d, 'request', 'workloads', 0, 'writes', 0, 'logical_write_sha256s', 0),
      ),
    expected: 'scoped_execution_originals@request.workloads[].writes[].logical_write_sha256s',
  },
  {
    rule: 'request: a constituent belongs to one workload',
    cell: SQL,
    edit: (d) =>
      list(d, 'request', 'workloads', 1, 'constituents').unshift(
        get(d, 'request', 'workloads', 0, 'constituents', 0),
      ),
    expected: 'scoped_execution_originals@request.workloads[].constituents',
  },
];

describe('one fixture per rule, each refused with its reason', () => {
  it('covers every reason the codec has for a document', () => {
    const reasons = new Set(RULES.map((rule) => rule.expected.split('@')[0]));
    for (const reason of SCOPED_EXECUTION_REASONS) {
      if (reason === 'scoped_execution_subject' || reason === 'scoped_execution_attempt') continue;
      expect(reasons).toContain(reason);
    }
  });

  it.each(RULES.map((rule) => [rule.rule, rule] as const))('%s', (_name, rule) => {
    const doc = structuredClone(built(rule.cell, rule.spec));
    rule.edit?.(doc);
    const outcome = rule.bytes
      ? decodeRaw(Buffer.from(rule.bytes(toCanonical(doc).bytes.toString('utf8'))))
      : decodeData(doc);
    expect(summary(outcome)).toBe(rule.expected);
  });

  it('accepts each cell fixture unchanged (the rules start from valid documents)', () => {
    for (const cell of [SQL, CH, PG]) expect(summary(decodeData(built(cell)))).toBe('ok');
  });
});

describe('the expected digest', () => {
  const { bytes, sha256 } = toCanonical(built(SQL));
  it.each([
    ['another document', fakeSha256('another')],
    ['upper-case hex', sha256.toUpperCase()],
    ['a sha256: prefix', `sha256:${sha256}`],
    ['a truncated digest', sha256.slice(0, 63)],
  ])('refuses %s with scoped_execution_subject', (_label, expected) => {
    expect(summary(decodeRaw(bytes, expected))).toMatch(/^scoped_execution_subject/);
  });

  it('is required', () => {
    const missing = outcomeOf(() => ScopedExecutionOwner.fromBytes(bytes, {} as { expectedSha256: string }));
    expect(summary(missing)).toBe('scoped_execution_subject@expected_sha256');
    const absent = outcomeOf(() =>
      // A JavaScript caller can leave the options out; the signature cannot
      // admit it without making the digest optional for every caller.
      ScopedExecutionOwner.fromBytes(bytes, undefined as unknown as { expectedSha256: string }),
    );
    expect(summary(absent)).toBe('scoped_execution_subject@expected_sha256');
  });
});
