import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../core/digest/index.js';
import { pyDumps } from '../core/json/index.js';
import { at } from '../core/list/index.js';
import { cloneData } from './canonical.js';
import { buildOwner, type Data, toCanonical } from './fixtures/build.js';
import { buildCell, SQLSERVER_DBT } from './fixtures/cells.js';
import { outcomeOf, summary } from './fixtures/outcome.js';
import type { ActivationAttemptValue } from './index.js';
import {
  ActivationAttempt,
  CompositionGrant,
  createDbtRelationWrite,
  type DbtRelationWriteInput,
  logicalWriteSha256,
  QualificationOwner,
  ScopedExecutionOwner,
} from './index.js';

/**
 * Values are immutable: a validated, deeply frozen copy in a private slot,
 * revalidated (nested originals included) for every serialization, hash and
 * comparison. Tampering either fails outright (frozen) or is detected by the
 * revalidation (forged instances, subclasses smuggling unvalidated values).
 */

const built = buildCell('sqlserver_dbt_v1');
const { bytes, sha256 } = toCanonical(built.owner);
const owner = ScopedExecutionOwner.fromBytes(bytes, { expectedSha256: sha256 });

describe('frozen values', () => {
  it('refuses assignment to the owner and to everything it hands out', () => {
    expect(() => {
      (owner as { requestSha256: string }).requestSha256 = 'x';
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(owner, 'extra', { value: 1 })).toThrow(TypeError);
    const hashes = at(at(owner.request.value.workloads, 0).writes, 0).logical_write_sha256s;
    expect(hashes.length).toBeGreaterThan(0);
    expect(() => Array.prototype.push.call(hashes, 'x')).toThrow(TypeError);
    const epochs = owner.guardEpochs;
    expect(() => {
      (at(epochs, 0) as { epoch: bigint }).epoch = 1n;
    }).toThrow(TypeError);
    const projection = owner.writeProjection();
    expect(() => {
      (at(projection, 0).write as { connector: string }).connector = 'sqlserver';
    }).toThrow(TypeError);
    expect(Buffer.from(owner.toBytes()).equals(bytes)).toBe(true);
  });

  it('is not affected by later changes to the value it was built from', () => {
    const input = structuredClone(built.owner);
    const fromValue = ScopedExecutionOwner.fromValue(input);
    (input.objects as Data[]).pop();
    (input.handoff as Data).qualification_owner_key = 'changed';
    expect(Buffer.from(fromValue.toBytes()).equals(bytes)).toBe(true);
  });
});

describe('forged instances', () => {
  it('refuse every query of an owner created without a validated value', () => {
    const forged = Object.create(ScopedExecutionOwner.prototype) as ScopedExecutionOwner;
    const queries: (() => unknown)[] = [
      () => forged.toBytes(),
      () => forged.toJSON(),
      () => forged.subjectSha256,
      () => forged.requestSha256,
      () => forged.ownerKey,
      () => forged.ownerReference,
      () => forged.guardEpochs,
      () => forged.request,
      () => forged.describe(),
      () => forged.writeProjection(),
      () => forged.requireAttempt(ActivationAttempt.fromValue(built.attempts.nightly)),
    ];
    for (const query of queries) expect(summary(outcomeOf(query))).toBe('scoped_execution_document');
  });

  it('refuse construction without the module token', () => {
    const attempt = outcomeOf(() => Reflect.construct(ScopedExecutionOwner, [Symbol('forged'), built.owner]));
    expect(summary(attempt)).toBe('scoped_execution_document');
  });

  it('refuse originals smuggled past their codec by a subclass', () => {
    // A subclass can reach the protected constructor with an unvalidated value: every use revalidates it.
    class Smuggled extends ActivationAttempt {
      constructor(value: unknown) {
        super(value as ActivationAttemptValue);
      }
    }
    const changed = { ...structuredClone(built.attempts.nightly), workload_id: 'nightly;DROP' };
    const smuggled = new Smuggled(changed);
    expect(summary(outcomeOf(() => smuggled.sha256))).toBe('scoped_execution_attempt@attempt.workload_id');
    expect(summary(outcomeOf(() => owner.requireAttempt(smuggled)))).toBe(
      'scoped_execution_attempt@attempt.workload_id',
    );
    const forgedGrant = Object.create(CompositionGrant.prototype) as CompositionGrant;
    const requirement = outcomeOf(() =>
      owner.requireOriginals({
        qualificationOwner: QualificationOwner.fromValue(built.qualificationOwner),
        qualificationGrant: forgedGrant,
        executionGrant: CompositionGrant.fromValue(built.executionGrant),
      }),
    );
    expect(summary(requirement)).toBe('scoped_execution_originals');
  });

  it('refuse values whose properties throw or change between reads', () => {
    let reads = 0;
    const shifty = new Proxy(structuredClone(built.owner), {
      get(target, key, receiver) {
        if (key === 'scope_sha256') reads++;
        if (key === 'scope_sha256' && reads > 1) return 'f'.repeat(64);
        return Reflect.get(target, key, receiver);
      },
    });
    // Read once into canonical bytes, so the value is whatever the first read said.
    const fromShifty = outcomeOf(() => ScopedExecutionOwner.fromValue(shifty));
    expect(summary(fromShifty)).toBe('ok');
    expect(reads).toBe(1);
    const throwing = { ...structuredClone(built.owner) };
    Object.defineProperty(throwing, 'claims', {
      enumerable: true,
      get() {
        throw new Error('SECRET_GETTER_TEXT');
      },
    });
    const refused = outcomeOf(() => ScopedExecutionOwner.fromValue(throwing));
    expect(summary(refused)).toBe('scoped_execution_document');
    expect(refused.kind === 'refused' && refused.refusal.message).not.toContain('SECRET');
  });
});

describe('original writes: a detached copy is validated, the original is never normalized', () => {
  const input: DbtRelationWriteInput = Object.freeze({
    project_path: 'analytics',
    workflow_id: 'workflow-nightly',
    resource_id: 'model.analytics.dim_customers',
    kind: 'table',
    connector: 'sqlserver',
    connection_ref: 'connection-warehouse',
    database: 'Warehouse',
    schema: 'dbo',
    relation: 'DimCustomers',
  });

  it('canonicalizes an alias and makes the default role explicit during legitimate construction', () => {
    const snapshot = structuredClone(input);
    const write = createDbtRelationWrite(input);
    expect(write.connector).toBe('mssql');
    expect(write.role).toBe('model');
    expect(Object.isFrozen(write)).toBe(true);
    expect(input).toEqual(snapshot);
    expect(logicalWriteSha256(write)).toBe(sha256Hex(pyDumps(write)));
  });

  it('keeps a construction-canonicalized alias valid inside an owner', () => {
    const write = createDbtRelationWrite(input);
    const spec = buildOwner(SQLSERVER_DBT);
    const nightly = (spec.owner.workloads as Data[]).find((w) => w.workload_id === 'nightly') as Data;
    const binding = (nightly.write_bindings as Data[]).find((b) => b.object_id === 'dim_customers') as Data;
    // The builder's write for this object is the same original a producer constructs from the alias.
    expect(binding.write).toEqual({ ...write });
    expect(summary(outcomeOf(() => ScopedExecutionOwner.fromValue(spec.owner)))).toBe('ok');
  });

  it('refuses an alias found in an original after construction', () => {
    const write = createDbtRelationWrite(input);
    const smuggled = { ...write, connector: 'sqlserver' };
    expect(summary(outcomeOf(() => logicalWriteSha256(smuggled as never)))).toBe(
      'scoped_execution_write_binding@write.connector',
    );
  });

  it('refuses an input it cannot construct, without touching it', () => {
    const bad = { ...input, connector: 'oracle' };
    expect(summary(outcomeOf(() => createDbtRelationWrite(bad)))).toBe(
      'scoped_execution_write_binding@write.connector',
    );
    expect(bad.connector).toBe('oracle');
  });
});

describe('detached copies', () => {
  it('regression: a key named __proto__ stays an own key of the copy, never its prototype', () => {
    const copy = cloneData(JSON.parse('{"__proto__":{"polluted":true},"a":[{"__proto__":1}]}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn((copy.a as object[])[0] as object, '__proto__')).toBe(true);
  });
});
