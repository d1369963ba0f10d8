import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../core/digest/index.js';
import {
  type BuiltOwner,
  buildOwner,
  type Data,
  fakeSha256,
  fakeUuid,
  type OwnerSpec,
  toCanonical,
} from './fixtures/build.js';
import { buildCell, MSSQL_CLICKHOUSE, SQLSERVER_DBT } from './fixtures/cells.js';
import { list, record, set } from './fixtures/json-path.js';
import { outcomeOf, summary } from './fixtures/outcome.js';
import {
  ActivationAttempt,
  ActivationRequest,
  CompositionGrant,
  MAX_ORIGINAL_BYTES,
  QualificationOperation,
  QualificationOwner,
  type RequiredOriginals,
  ScopedExecutionOwner,
} from './index.js';

/**
 * The originals sealkit defines for the comparisons of
 * docs/owner.md#comparisons: each has its own strict canonical codec with a
 * 1 MiB bound, and the owner compares them exactly (requireOriginals) or
 * validates an attempt against R (requireAttempt). Each mismatch below
 * changes one thing.
 */

function ownerOf(built: BuiltOwner): ScopedExecutionOwner {
  const { bytes, sha256 } = toCanonical(built.owner);
  return ScopedExecutionOwner.fromBytes(bytes, { expectedSha256: sha256 });
}

function originalsOf(
  built: BuiltOwner,
  edit?: (parts: { [K in 'qo' | 'qg' | 'eg']: Data }) => void,
): RequiredOriginals {
  const parts = {
    qo: structuredClone(built.qualificationOwner),
    qg: structuredClone(built.qualificationGrant),
    eg: structuredClone(built.executionGrant),
  };
  edit?.(parts);
  return {
    qualificationOwner: QualificationOwner.fromValue(parts.qo),
    qualificationGrant: CompositionGrant.fromValue(parts.qg),
    executionGrant: CompositionGrant.fromValue(parts.eg),
  };
}

describe('the original codecs', () => {
  const built = buildCell('mssql_clickhouse_full_refresh_v1');
  const codecs = [
    ['request', built.request, ActivationRequest, 'scoped_execution_originals'],
    ['qualification owner', built.qualificationOwner, QualificationOwner, 'scoped_execution_originals'],
    ['qualification grant', built.qualificationGrant, CompositionGrant, 'scoped_execution_originals'],
    ['execution grant', built.executionGrant, CompositionGrant, 'scoped_execution_originals'],
    [
      'qualification operation',
      record(built.owner, 'handoff', 'source_seals', 0).operation,
      QualificationOperation,
      'scoped_execution_handoff',
    ],
    ['attempt', built.attempts.invoices, ActivationAttempt, 'scoped_execution_attempt'],
  ] as const;

  it.each(codecs)(
    '%s: exact canonical bytes round-trip, with or without an expected digest',
    (_n, data, codec) => {
      const { bytes, sha256 } = toCanonical(data);
      const decoded = codec.fromBytes(bytes, { expectedSha256: sha256 });
      expect(Buffer.from(decoded.toBytes()).equals(bytes)).toBe(true);
      expect(decoded.sha256).toBe(sha256);
      expect(Buffer.from(codec.fromBytes(bytes).toBytes()).equals(bytes)).toBe(true);
      expect(Buffer.from(codec.fromValue(decoded.toJSON()).toBytes()).equals(bytes)).toBe(true);
    },
  );

  it.each(codecs)(
    '%s: refuses non-canonical bytes, another digest, unknown fields and its size bound',
    (_n, data, codec, reason) => {
      const { bytes } = toCanonical(data);
      const spaced = Buffer.from(` ${bytes.toString('utf8')}`);
      // Valid but not canonical: named so, not read as a fault of a value.
      expect(summary(outcomeOf(() => codec.fromBytes(spaced)))).toBe(`${reason}@canonical_form`);
      expect(summary(outcomeOf(() => codec.fromBytes(bytes, { expectedSha256: fakeSha256('x') })))).toMatch(
        /^scoped_execution_subject/,
      );
      expect(summary(outcomeOf(() => codec.fromValue({ ...(data as Data), extra: 1 })))).toMatch(
        new RegExp(`^${reason}`),
      );
      const padded = Buffer.concat([bytes, Buffer.alloc(MAX_ORIGINAL_BYTES + 1 - bytes.length, 0x20)]);
      expect(padded.length).toBe(MAX_ORIGINAL_BYTES + 1);
      expect(summary(outcomeOf(() => codec.fromBytes(padded)))).toBe(reason);
    },
  );
});

describe('a required key missing from an original', () => {
  const built = buildCell('mssql_clickhouse_full_refresh_v1');
  const without = (data: unknown, key: string): Data => {
    const copy = structuredClone(data as Data);
    delete copy[key];
    return copy;
  };

  it.each([
    [
      'the attempt',
      () => ActivationAttempt.fromBytes(toCanonical(without(built.attempts.invoices, 'workload_id')).bytes),
      'scoped_execution_attempt@attempt.workload_id',
    ],
    [
      'the execution grant',
      () =>
        CompositionGrant.fromBytes(toCanonical(without(built.executionGrant, 'claims')).bytes, {
          role: 'execution_grant',
        }),
      'scoped_execution_originals@execution_grant.claims',
    ],
    [
      'the qualification owner',
      () => QualificationOwner.fromBytes(toCanonical(without(built.qualificationOwner, 'schema')).bytes),
      'scoped_execution_originals@qualification_owner.schema',
    ],
  ] as readonly (readonly [string, () => unknown, string])[])(
    'regression: in %s, is named by its field path under the original',
    (_name, decode, expected) => {
      expect(summary(outcomeOf(decode))).toBe(expected);
    },
  );

  it('regression: in the owner document, is named (an unknown key is not: it is placed at top_level_keys)', () => {
    const owner = without(built.owner, 'handoff');
    const bytes = toCanonical(owner).bytes;
    const decode = () => ScopedExecutionOwner.fromBytes(bytes, { expectedSha256: sha256Hex(bytes) });
    expect(summary(outcomeOf(decode))).toBe('scoped_execution_document@handoff');
    const extra = toCanonical({ ...(built.owner as Data), zzz_unknown: 1 }).bytes;
    expect(
      summary(outcomeOf(() => ScopedExecutionOwner.fromBytes(extra, { expectedSha256: sha256Hex(extra) }))),
    ).toBe('scoped_execution_document@top_level_keys');
  });
});

describe('requireOriginals', () => {
  const built = buildCell('sqlserver_dbt_v1');
  const owner = ownerOf(built);

  it('accepts the exact originals', () => {
    expect(summary(outcomeOf(() => owner.requireOriginals(originalsOf(built))))).toBe('ok');
  });

  const otherRun = fakeUuid('another qualification run');
  it.each([
    [
      'a qualification grant of the execution kind',
      (p: { qg: Data }) => {
        p.qg.grant_kind = 'execution';
        p.qg.owner_key = `execution:${fakeUuid('x')}`;
      },
      'qualification_grant.grant_kind',
    ],
    [
      'an execution grant of the qualification kind',
      (p: { eg: Data }) => {
        p.eg.grant_kind = 'qualification';
        p.eg.owner_key = `qualification:${fakeUuid('x')}`;
      },
      'execution_grant.grant_kind',
    ],
    [
      'an execution grant over another scope',
      (p: { eg: Data }) => {
        p.eg.scope_sha256 = fakeSha256('other scope');
      },
      'execution_grant.scope_sha256',
    ],
    [
      'a qualification grant over another scope',
      (p: { qg: Data }) => {
        p.qg.scope_sha256 = fakeSha256('other scope');
      },
      'qualification_grant.scope_sha256',
    ],
    [
      'an execution grant missing one read subject',
      (p: { eg: Data }) => {
        list(p.eg, 'claims', 1, 'read_subjects').pop();
      },
      'execution_grant.claims',
    ],
    [
      'an execution grant with another claim role',
      (p: { eg: Data }) => {
        set(p.eg, ['claims', 0, 'role'], 'target');
      },
      'execution_grant.claims',
    ],
    [
      'a qualification grant granting a write as a read',
      (p: { qg: Data }) => {
        const claim = record(p.qg, 'claims', 1);
        const moved = list(claim, 'write_subjects').pop();
        list(claim, 'read_subjects').push(moved);
        list(claim, 'read_subjects').sort();
      },
      'qualification_grant.claims',
    ],
    [
      'an execution grant issued to another owner',
      (p: { eg: Data }) => {
        p.eg.owner_key = `execution:${fakeUuid('another activation')}`;
      },
      'execution_grant.owner_key',
    ],
    [
      'a qualification owner of another run',
      (p: { qo: Data }) => {
        p.qo.qualification_run_id = otherRun;
      },
      'qualification_owner.qualification_run_id',
    ],
    [
      'a qualification owner whose bytes differ from the handoff subject',
      (p: { qo: Data }) => {
        p.qo.grant_sha256 = fakeSha256('another grant');
      },
      'qualification_owner',
    ],
    [
      'a qualification grant issued to another qualification owner',
      (p: { qg: Data }) => {
        p.qg.owner_key = `qualification:${otherRun}`;
      },
      'qualification_grant.owner_key',
    ],
  ] as const)('refuses %s', (_label, edit, field) => {
    const result = outcomeOf(() => owner.requireOriginals(originalsOf(built, edit as never)));
    expect(summary(result)).toBe(`scoped_execution_originals@${field}`);
  });

  it('refuses a qualification owner that holds another grant than the one supplied', () => {
    const spec: OwnerSpec = {
      ...SQLSERVER_DBT,
      overrides: { qualificationOwnerGrantSha256: fakeSha256('g') },
    };
    const b = buildOwner(spec);
    expect(summary(outcomeOf(() => ownerOf(b).requireOriginals(originalsOf(b))))).toBe(
      'scoped_execution_originals@qualification_owner.grant_sha256',
    );
  });

  it('refuses seal operations recorded under another grant (the seal-owner comparison)', () => {
    const spec: OwnerSpec = { ...SQLSERVER_DBT, overrides: { operationGrantSha256: fakeSha256('g') } };
    const b = buildOwner(spec);
    expect(summary(outcomeOf(() => ownerOf(b).requireOriginals(originalsOf(b))))).toBe(
      'scoped_execution_originals@handoff.source_seals[].operation.grant_sha256',
    );
  });

  it('refuses anything that is not a decoded original', () => {
    const plain = { ...originalsOf(built), qualificationOwner: built.qualificationOwner };
    expect(summary(outcomeOf(() => owner.requireOriginals(plain as never)))).toBe(
      'scoped_execution_originals@qualification_owner',
    );
    expect(summary(outcomeOf(() => owner.requireOriginals(undefined as never)))).toBe(
      'scoped_execution_originals',
    );
  });
});

describe('requireAttempt', () => {
  const built = buildCell('mssql_clickhouse_full_refresh_v1');
  const owner = ownerOf(built);

  function attempt(edit: (a: Data) => void) {
    const data = structuredClone(built.attempts.invoices as Data);
    edit(data);
    return outcomeOf(() => owner.requireAttempt(ActivationAttempt.fromValue(data)));
  }

  it('returns the epochs of every guard its workload declares effects on, not only the written ones', () => {
    const data = built.attempts.invoices as Data;
    const selected = owner.requireAttempt(ActivationAttempt.fromValue(data));
    const written = (data.write_epochs as Data[]).map((e) => e.guard_id);
    expect(written).toHaveLength(1);
    expect(selected.map((e) => e.guardId)).toHaveLength(2);
    expect(selected.map((e) => e.guardId)).toEqual(expect.arrayContaining(written));
  });

  it.each([
    [
      'another request digest',
      (a: Data) => {
        a.activation_request_sha256 = fakeSha256('other request');
      },
      'activation_request_sha256',
    ],
    [
      'another pack',
      (a: Data) => {
        a.pack_sha256 = fakeSha256('other pack');
      },
      'pack_sha256',
    ],
    [
      'a workload the request does not have',
      (a: Data) => {
        a.workload_id = 'payments';
      },
      'workload_id',
    ],
    [
      'other constituents',
      (a: Data) => {
        a.constituents = ['transfer.erp.open_items'];
      },
      'constituents',
    ],
    [
      'a legacy write epoch one too high',
      (a: Data) => {
        set(a, ['write_epochs', 0, 'epoch'], (get0(a) as bigint) + 1n);
      },
      'write_epochs',
    ],
    [
      'the qualification (old) epoch',
      (a: Data) => {
        set(a, ['write_epochs', 0, 'epoch'], (get0(a) as bigint) - 1n);
      },
      'write_epochs',
    ],
    [
      'an extra legacy write epoch',
      (a: Data) => {
        list(a, 'write_epochs').unshift({ guard_id: `clickhouse:aaa:${'0'.repeat(64)}`, epoch: 5n });
      },
      'write_epochs',
    ],
  ] as const)('refuses %s', (_label, edit, field) => {
    expect(summary(attempt(edit))).toBe(`scoped_execution_attempt@attempt.${field}`);
  });

  it('refuses a legacy write projection that omits a written guard', () => {
    const other = buildCell('mssql_clickhouse_full_refresh_v1').attempts.invoices as Data;
    set(other, ['write_epochs'], []);
    expect(summary(outcomeOf(() => ActivationAttempt.fromValue(other)))).toBe(
      'scoped_execution_attempt@attempt.write_epochs',
    );
  });

  it('refuses an attempt of another owner with the same workload names', () => {
    const another = buildOwner({ ...MSSQL_CLICKHOUSE, seed: 'another-activation' });
    const result = outcomeOf(() =>
      owner.requireAttempt(ActivationAttempt.fromValue(another.attempts.invoices)),
    );
    expect(summary(result)).toBe('scoped_execution_attempt@attempt.activation_request_sha256');
    expect(sha256Hex(toCanonical(another.request).bytes)).not.toBe(owner.requestSha256);
  });

  it('refuses anything that is not a decoded attempt', () => {
    expect(summary(outcomeOf(() => owner.requireAttempt(built.attempts.invoices as never)))).toBe(
      'scoped_execution_attempt',
    );
  });
});

function get0(attempt: Data): unknown {
  return record(list(attempt, 'write_epochs')[0]).epoch;
}
