import { describe, expect, it } from 'vitest';
import {
  buildOwner,
  type Data,
  type DomainSpec,
  fakeSha256,
  type OwnerSpec,
  toCanonical,
  type WorkloadSpec,
} from './fixtures/build.js';
import { CELL_SPECS } from './fixtures/cells.js';
import { list, type Mutable, record, set } from './fixtures/json-path.js';
import { buildExactSize, MAXIMAL, type ScaleOptions, scaledSpec } from './fixtures/maximal.js';
import { decodeData, decodeRaw, outcomeOf, summary } from './fixtures/outcome.js';
import {
  ActivationRequest,
  MAX_ORIGINAL_BYTES,
  MAX_OWNER_BYTES,
  OWNER_LIMITS,
  QualificationOperation,
} from './index.js';

/**
 * Every limit of docs/owner.md#limits at N and at N + 1, on documents built
 * consistently (every digest and cross-reference agrees), so the only thing
 * wrong with an N + 1 document is the count itself. Where another limit is
 * implied (a 257th claim needs a 257th observation and epoch move), the
 * document is still consistent and the codec names the limit under test.
 */

function mutableSpec(options: ScaleOptions): Mutable<OwnerSpec> {
  return scaledSpec(options) as Mutable<OwnerSpec>;
}

function outcome(spec: OwnerSpec | Mutable<OwnerSpec>, edit?: (doc: Data) => void): string {
  const doc = buildOwner(spec as OwnerSpec).owner;
  edit?.(doc);
  return summary(decodeData(doc));
}

function countSubjects(doc: Data): number {
  return list(doc, 'claims').reduce<number>(
    (sum, claim) => sum + list(claim, 'read_subjects').length + list(claim, 'write_subjects').length,
    0,
  );
}

const SMALL_DOMAINS: ScaleOptions = {
  domains: 256,
  sources: 1,
  targets: 1,
  workloads: 64,
  seals: 64,
  partLength: 8,
};

describe('the maximal document', () => {
  const built = buildOwner(scaledSpec(MAXIMAL)).owner;

  it('holds the owner limits at their maximum where a valid document can reach them, and is valid', () => {
    expect(list(built, 'claims')).toHaveLength(OWNER_LIMITS.claims.max);
    expect(list(built, 'observations')).toHaveLength(OWNER_LIMITS.observations.max);
    expect(list(built, 'handoff', 'epochs')).toHaveLength(OWNER_LIMITS.epochMoves.max);
    expect(list(built, 'handoff', 'source_seals')).toHaveLength(OWNER_LIMITS.sealAssociations.max);
    expect(list(built, 'workloads')).toHaveLength(OWNER_LIMITS.workloads.max);
    expect(list(built, 'objects')).toHaveLength(OWNER_LIMITS.objects.max);
    expect(countSubjects(built)).toBe(OWNER_LIMITS.subjects.max);
    const effects = list(built, 'workloads').reduce<number>((n, w) => n + list(w, 'effects').length, 0);
    expect(effects).toBe(OWNER_LIMITS.effects.max);
    expect(summary(decodeData(built))).toBe('ok');
  });
});

describe('claims, observations and epoch moves: 1–256 by guard', () => {
  it('accepts 256 claims and refuses 257 (scoped_execution_owner)', () => {
    expect(outcome(mutableSpec(SMALL_DOMAINS))).toBe('ok');
    expect(outcome(mutableSpec({ ...SMALL_DOMAINS, domains: 257 }))).toBe('scoped_execution_owner@claims');
  });

  it('refuses a 257th observation (for a guard no claim has) as a count', () => {
    const extra = (doc: Data) =>
      list(doc, 'observations').push({
        guard_id: `mssql:zz-extra:${'0'.repeat(64)}`,
        object_ids: ['zz'],
        original: { path: 'evidence/extra.json', sha256: fakeSha256('extra'), size_bytes: 1 },
      });
    expect(outcome(mutableSpec(SMALL_DOMAINS), extra)).toBe('scoped_execution_observation@observations');
    // The same extra observation below the limit is refused as an entry, not as a count.
    expect(outcome(CELL_SPECS.sqlserver_dbt_v1, extra)).toBe(
      'scoped_execution_observation@observations[].guard_id',
    );
  });

  it('refuses a 257th epoch move as a count', () => {
    const extra = (doc: Data) =>
      list(doc, 'handoff', 'epochs').push({
        guard_id: `mssql:zz-extra:${'0'.repeat(64)}`,
        qualification_epoch: 1n,
        execution_epoch: 2n,
      });
    expect(outcome(mutableSpec(SMALL_DOMAINS), extra)).toBe('scoped_execution_handoff@handoff.epochs');
    expect(outcome(CELL_SPECS.sqlserver_dbt_v1, extra)).toBe(
      'scoped_execution_handoff@handoff.epochs[].guard_id',
    );
  });

  it.each([
    ['claims', ['claims'], 'scoped_execution_owner@claims'],
    ['observations', ['observations'], 'scoped_execution_observation@observations'],
    ['epoch moves', ['handoff', 'epochs'], 'scoped_execution_handoff@handoff.epochs'],
    ['seal associations', ['handoff', 'source_seals'], 'scoped_execution_handoff@handoff.source_seals'],
    ['objects', ['objects'], 'scoped_execution_object@objects'],
    ['retained source IDs', ['retained_source_ids'], 'scoped_execution_object@retained_source_ids'],
    ['workloads', ['workloads'], 'scoped_execution_workload@workloads'],
  ])('refuses zero %s', (_label, path, expected) => {
    expect(outcome(CELL_SPECS.sqlserver_dbt_v1, (doc) => set(doc, path, []))).toBe(expected);
  });
});

describe('read/write subjects: at most 8192, a subject in both directions counting twice', () => {
  it('accepts 8192 and refuses 8193 made by claiming one written object for reading too', () => {
    const spec = mutableSpec(MAXIMAL);
    expect(outcome(spec)).toBe('ok');
    const target = spec.domains[0]?.objects.find((object) => object.write);
    if (target === undefined) throw new Error('fixture has no target');
    target.read = true;
    const doc = buildOwner(spec as OwnerSpec).owner;
    expect(list(doc, 'objects')).toHaveLength(8192);
    expect(countSubjects(doc)).toBe(8193);
    expect(summary(decodeData(doc))).toBe('scoped_execution_owner@claims');
  });
});

describe('objects: 1–8192 by object ID', () => {
  it('accepts 8192 and refuses 8193', () => {
    const spec = mutableSpec(MAXIMAL);
    expect(outcome(spec)).toBe('ok');
    spec.domains[0]?.objects.push({
      id: 'd000_zz_extra',
      kind: 'table',
      name: ['Db000', 'raw', 'Extra'],
      read: true,
    });
    expect(outcome(spec)).toBe('scoped_execution_object@objects');
  });
});

describe('effects: at most 8192 across all workloads', () => {
  it('accepts 8192 and refuses 8193 (a helper read beside a source read of one object)', () => {
    const spec = mutableSpec(MAXIMAL);
    expect(outcome(spec)).toBe('ok');
    spec.workloads[0]?.effects.push(['d000_src000', 'read', 'helper']);
    expect(outcome(spec)).toBe('scoped_execution_workload@workloads[].effects');
  });
});

describe('workloads: 1–64, exactly the request workloads', () => {
  it('accepts 64 and refuses 65', () => {
    expect(outcome(mutableSpec({ ...MAXIMAL, workloads: 64 }))).toBe('ok');
    expect(outcome(mutableSpec({ ...MAXIMAL, workloads: 65 }))).toBe('scoped_execution_workload@workloads');
  });
});

describe('seal associations: 1–64 by operation digest', () => {
  it('accepts 64 and refuses 65', () => {
    expect(outcome(mutableSpec({ ...MAXIMAL, seals: 64 }))).toBe('ok');
    expect(outcome(mutableSpec({ ...MAXIMAL, seals: 65 }))).toBe(
      'scoped_execution_handoff@handoff.source_seals',
    );
  });
});

/**
 * A valid document needs at least one retained source (sealed, never written)
 * and one genuine write (every request workload writes), and holds at most
 * 8192 objects: so 8191 is the most retained sources or genuine write
 * bindings a valid document can have. At 8192 the object limit refuses, not
 * the limit under test; at 8193 the limit under test refuses first.
 */
function retainedSpec(retained: number): OwnerSpec {
  const domains: DomainSpec[] = [];
  for (let d = 0; d < 256; d++) {
    const objects: Mutable<DomainSpec['objects'][number]>[] = [];
    for (let i = d; i < retained; i += 256) {
      objects.push({
        id: `r${String(i).padStart(5, '0')}`,
        kind: 'table',
        name: [`Db${d}`, 'raw', `T${i}`],
        read: true,
        retained: true,
      });
    }
    if (d === 0) objects.push({ id: 'w00000', kind: 'table', name: ['Db0', 'mart', 'Out'], write: true });
    domains.push({
      key: `r${d}`,
      connector: 'mssql',
      serviceId: `mssql-${d}`,
      role: d === 0 ? 'target' : 'source',
      qualificationEpoch: 5n,
      objects,
    });
  }
  const workload: WorkloadSpec = {
    id: 'load',
    constituents: ['model.analytics.out'],
    effects: [['w00000', 'write', 'target']],
    writes: [{ object: 'w00000', role: 'model' }],
  };
  const ids = domains.flatMap((domain) => domain.objects.filter((o) => o.retained).map((o) => o.id));
  const seals = Array.from({ length: 64 }, (_, k) =>
    ids.slice(Math.floor((k * ids.length) / 64), Math.floor(((k + 1) * ids.length) / 64)),
  );
  return { cell: 'sqlserver_dbt_v1', seed: `retained-${retained}`, domains, workloads: [workload], seals };
}

function bindingsSpec(bindings: number): OwnerSpec {
  const domains: DomainSpec[] = [];
  for (let d = 0; d < 256; d++) {
    const objects: Mutable<DomainSpec['objects'][number]>[] = [];
    for (let i = d; i < bindings; i += 256) {
      objects.push({
        id: `w${String(i).padStart(5, '0')}`,
        kind: 'table',
        name: [`Db${d}`, 'mart', `T${i}`],
        write: true,
      });
    }
    if (d === 0)
      objects.push({ id: 'r00000', kind: 'table', name: ['Db0', 'raw', 'In'], read: true, retained: true });
    domains.push({
      key: `w${d}`,
      connector: 'mssql',
      serviceId: `mssql-${d}`,
      role: 'target',
      qualificationEpoch: 5n,
      objects,
    });
  }
  const workloads: WorkloadSpec[] = [];
  for (let w = 0; w < 64; w++) {
    const ids: string[] = [];
    for (let i = w; i < bindings; i += 64) ids.push(`w${String(i).padStart(5, '0')}`);
    workloads.push({
      id: `load_${String(w).padStart(2, '0')}`,
      constituents: [`model.analytics.load_${w}`],
      effects: ids.map((id) => [id, 'write', 'target'] as const),
      writes: ids.map((id) => ({ object: id, role: 'model' as const })),
    });
  }
  return { cell: 'sqlserver_dbt_v1', seed: `bindings-${bindings}`, domains, workloads, seals: [['r00000']] };
}

describe('retained source IDs: 1–8192 by object ID', () => {
  it('accepts 8191 (the most a valid document holds), passes 8192 on to the object limit, refuses 8193', () => {
    expect(outcome(retainedSpec(8191))).toBe('ok');
    expect(outcome(retainedSpec(8192))).toBe('scoped_execution_object@objects');
    expect(outcome(retainedSpec(8193))).toBe('scoped_execution_object@retained_source_ids');
  });
});

describe('genuine write bindings: at most 8192 across all workloads', () => {
  it('accepts 8191 (the most a valid document holds), passes 8192 on to the object limit, refuses 8193', () => {
    expect(outcome(bindingsSpec(8191))).toBe('ok');
    expect(outcome(bindingsSpec(8192))).toBe('scoped_execution_object@objects');
    expect(outcome(bindingsSpec(8193))).toBe('scoped_execution_write_binding@workloads[].write_bindings');
  });
});

describe('the outer bound: 8 MiB of canonical bytes', () => {
  it('accepts exactly 8 MiB and refuses one byte more before parsing', () => {
    const atBound = toCanonical(buildExactSize(scaledSpec(MAXIMAL), MAX_OWNER_BYTES).owner);
    expect(atBound.bytes.length).toBe(MAX_OWNER_BYTES);
    expect(summary(decodeRaw(atBound.bytes))).toBe('ok');
    const over = toCanonical(buildExactSize(scaledSpec(MAXIMAL), MAX_OWNER_BYTES + 1).owner);
    expect(over.bytes.length).toBe(MAX_OWNER_BYTES + 1);
    expect(summary(decodeRaw(over.bytes))).toBe('scoped_execution_document');
  });
});

/** The SQL Server fixture whose request is padded with constituents to exactly `bytes` canonical bytes. */
function requestOfSize(bytes: number): Data {
  const doc = buildOwner(CELL_SPECS.sqlserver_dbt_v1).owner;
  const constituents = list(doc, 'request', 'workloads', 0, 'constituents') as string[];
  let remaining = bytes - toCanonical(record(doc, 'request')).bytes.length;
  let index = 0;
  while (remaining > 0) {
    // An added ID of length L adds L + 3 bytes ("…",); keep what is left either 0 or at least 4.
    let take = Math.min(131, remaining);
    if (remaining - take > 0 && remaining - take < 4) take = remaining - 4;
    const name = `c${String(index++).padStart(5, '0')}`;
    constituents.push(name + 'x'.repeat(take - 3 - name.length));
    remaining -= take;
  }
  constituents.sort();
  return doc;
}

describe('the embedded request: its own 1 MiB bound', () => {
  it('accepts a request of exactly 1 MiB and refuses one byte more, embedded and on its own', () => {
    const atBound = requestOfSize(MAX_ORIGINAL_BYTES);
    const requestBytes = toCanonical(record(atBound, 'request')).bytes;
    expect(requestBytes.length).toBe(MAX_ORIGINAL_BYTES);
    expect(summary(decodeData(atBound))).toBe('ok');
    expect(summary(outcomeOf(() => ActivationRequest.fromBytes(requestBytes)))).toBe('ok');

    const over = requestOfSize(MAX_ORIGINAL_BYTES + 1);
    const overBytes = toCanonical(record(over, 'request')).bytes;
    expect(overBytes.length).toBe(MAX_ORIGINAL_BYTES + 1);
    expect(summary(decodeData(over))).toBe('scoped_execution_originals@request');
    expect(summary(outcomeOf(() => ActivationRequest.fromBytes(overBytes)))).toBe(
      'scoped_execution_originals',
    );
  });
});

describe('bounded values', () => {
  const sql = CELL_SPECS.sqlserver_dbt_v1;
  const pg = CELL_SPECS.postgres_mssql_full_refresh_v1;
  const ch = CELL_SPECS.mssql_clickhouse_full_refresh_v1;

  function withPart(spec: OwnerSpec, domain: number, object: number, part: number, text: string): OwnerSpec {
    const copy = structuredClone(spec) as Mutable<OwnerSpec>;
    const target = copy.domains[domain]?.objects[object];
    if (target === undefined) throw new Error('no such object');
    target.name[part] = text;
    return copy as OwnerSpec;
  }

  it.each([
    ['PostgreSQL', pg, 0, 2, 63],
    ['MSSQL', sql, 0, 2, 128],
    ['ClickHouse', ch, 1, 0, 128],
  ])(
    'a %s name part: %i… accepted at its limit, refused one character over',
    (_label, spec, domain, object, max) => {
      // Objects that are written are bound by name, so pick a read-only one where the cell has it.
      const name = (n: number) => `N${'x'.repeat(n - 1)}`;
      expect(outcome(withPart(spec, domain, object, 1, name(max)))).toBe('ok');
      expect(outcome(withPart(spec, domain, object, 1, name(max + 1)))).toBe(
        'scoped_execution_object@objects[].qualified_name[]',
      );
    },
  );

  it('accepts a qualification epoch of 2^63 − 2 (execution 2^63 − 1) and refuses 2^63 − 1', () => {
    const doc = buildOwner(pg).owner;
    const epochs = list(doc, 'handoff', 'epochs');
    const top = epochs.find((move) => record(move).qualification_epoch === 2n ** 63n - 2n);
    expect(record(top).execution_epoch).toBe(2n ** 63n - 1n);
    expect(summary(decodeData(doc))).toBe('ok');
    const bytes = toCanonical(doc).bytes.toString('utf8');
    expect(bytes).toContain('"execution_epoch":9223372036854775807');
    set(top, ['qualification_epoch'], 2n ** 63n - 1n);
    set(top, ['execution_epoch'], 2n ** 63n);
    expect(summary(decodeData(doc))).toBe('scoped_execution_handoff@handoff.epochs[].qualification_epoch');
  });

  it('accepts a descriptor path of 1024 characters and refuses 1025', () => {
    const path = (n: number) => `evidence/${'p'.repeat(n - 9)}`;
    const at = buildOwner(sql).owner;
    set(at, ['observations', 0, 'original', 'path'], path(1024));
    expect(summary(decodeData(at))).toBe('ok');
    set(at, ['observations', 0, 'original', 'path'], path(1025));
    expect(summary(decodeData(at))).toBe('scoped_execution_observation@observations[].original.path');
  });

  it('accepts a descriptor size of 1 MiB and refuses one byte more', () => {
    const doc = buildOwner(sql).owner;
    set(doc, ['observations', 0, 'original', 'size_bytes'], MAX_ORIGINAL_BYTES);
    expect(summary(decodeData(doc))).toBe('ok');
    set(doc, ['observations', 0, 'original', 'size_bytes'], MAX_ORIGINAL_BYTES + 1);
    expect(summary(decodeData(doc))).toBe('scoped_execution_observation@observations[].original.size_bytes');
  });

  it('accepts an original write field of 1024 characters and refuses 1025', () => {
    const withPath = (n: number) => {
      const copy = structuredClone(sql) as Mutable<OwnerSpec>;
      const write = copy.workloads[1]?.writes[0];
      if (write === undefined) throw new Error('no write');
      write.projectPath = 'p'.repeat(n);
      return copy as OwnerSpec;
    };
    expect(outcome(withPath(1024))).toBe('ok');
    expect(outcome(withPath(1025))).toBe(
      'scoped_execution_write_binding@workloads[].write_bindings[].write.project_path',
    );
  });

  it('accepts an object ID of 128 characters and refuses 129', () => {
    const withId = (n: number) => {
      const copy = structuredClone(sql) as Mutable<OwnerSpec>;
      const object = copy.domains[0]?.objects.find((o) => o.id === 'helper_calendar');
      if (object === undefined) throw new Error('no object');
      object.id = `h${'x'.repeat(n - 1)}`;
      const workload = copy.workloads[0];
      if (workload === undefined) throw new Error('no workload');
      workload.effects = workload.effects.map(([o, a, p]) => [o === 'helper_calendar' ? object.id : o, a, p]);
      return copy as OwnerSpec;
    };
    expect(outcome(withId(128))).toBe('ok');
    expect(outcome(withId(129))).toBe('scoped_execution_object@objects[].object_id');
  });

  it('accepts a try number of 2^31 − 1 and refuses 2^31', () => {
    // The PostgreSQL cell has one seal, so its operation digest has no neighbour to be ordered against.
    const doc = buildOwner(pg).owner;
    set(doc, ['handoff', 'source_seals', 0, 'operation', 'try_number'], 2 ** 31 - 1);
    expect(summary(decodeData(doc))).toBe('ok');
    set(doc, ['handoff', 'source_seals', 0, 'operation', 'try_number'], 2 ** 31);
    expect(summary(decodeData(doc))).toBe(
      'scoped_execution_handoff@handoff.source_seals[].operation.try_number',
    );
  });

  it('accepts an operation selecting 256 guards and refuses 257', () => {
    const spec = mutableSpec({ ...SMALL_DOMAINS, seals: 1 });
    const doc = buildOwner(spec as OwnerSpec).owner;
    const operation = record(doc, 'handoff', 'source_seals', 0, 'operation');
    expect(list(operation, 'guard_epochs')).toHaveLength(256);
    expect(summary(decodeData(doc))).toBe('ok');
    expect(summary(outcomeOf(() => QualificationOperation.fromValue(operation)))).toBe('ok');
    list(operation, 'guard_epochs').push({ guard_id: `postgresql:zz:${'f'.repeat(64)}`, epoch: 1n });
    expect(summary(outcomeOf(() => QualificationOperation.fromValue(operation)))).toBe(
      'scoped_execution_handoff@operation.guard_epochs',
    );
  });
});
