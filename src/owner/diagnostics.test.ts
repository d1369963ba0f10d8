import { describe, expect, it } from 'vitest';
import { scanBytes } from '../../test/helpers/sentinels.js';
import { at } from '../core/list/index.js';
import { buildOwner, type Data, type OwnerSpec, toCanonical } from './fixtures/build.js';
import { SQLSERVER_DBT } from './fixtures/cells.js';
import { type Mutable, record, set } from './fixtures/json-path.js';
import { decodeData, decodeRaw, type Outcome, outcomeOf } from './fixtures/outcome.js';
import { ActivationAttempt, CompositionGrant, QualificationOwner, ScopedExecutionOwner } from './index.js';

/**
 * Diagnostics never include document payloads: every value below carries a
 * sentinel, each refusal is provoked by a sentinel-bearing value, and the
 * refusal's message, JSON form, string form and field path are scanned for
 * the sentinel in every encoding a leak could take.
 */

const SENTINELS = [
  'ZqSecretDb',
  'ZqSecretTable',
  'zqsecret-svc',
  'zqsecret_project',
  'zqsecret_path',
  'ZqSecretKey',
];

function plantedSpec(): OwnerSpec {
  const spec = structuredClone(SQLSERVER_DBT) as Mutable<OwnerSpec>;
  for (const domain of spec.domains) {
    domain.serviceId = `zqsecret-svc-${domain.key}`;
    for (const object of domain.objects) {
      object.name = ['ZqSecretDb', at(object.name, 1), `ZqSecretTable_${object.id}`];
    }
  }
  for (const workload of spec.workloads) {
    workload.writes = workload.writes.map((write) => ({ ...write, projectPath: 'zqsecret_project' }));
  }
  return spec as OwnerSpec;
}

function expectNoLeak(outcome: Outcome<unknown>): void {
  expect(outcome.kind).toBe('refused');
  if (outcome.kind !== 'refused') return;
  const { refusal } = outcome;
  const surfaces = [
    { label: 'message', bytes: refusal.message },
    { label: 'json', bytes: JSON.stringify(refusal.toJSON()) },
    { label: 'string', bytes: String(refusal) },
    { label: 'field', bytes: `${refusal.field ?? ''} ${refusal.role ?? ''}` },
  ];
  expect(scanBytes(surfaces, SENTINELS)).toEqual([]);
}

describe('refusals carry no document payload', () => {
  const built = buildOwner(plantedSpec());
  const planted = toCanonical(built.owner);

  it('the planted document is valid and full of sentinels', () => {
    expect(decodeRaw(planted.bytes).kind).toBe('ok');
    expect(scanBytes([{ label: 'doc', bytes: planted.bytes }], SENTINELS).length).toBeGreaterThan(0);
  });

  const edits: readonly (readonly [string, (doc: Data) => void])[] = [
    ['a SQL fragment in a name', (d) => set(d, ['objects', 0, 'qualified_name', 2], 'ZqSecretTable;DROP')],
    [
      'a service ID outside the grammar',
      (d) => set(d, ['objects', 0, 'service_id'], 'zqsecret-svc with space'),
    ],
    [
      'a control character in an original write',
      (d) => set(d, ['workloads', 0, 'write_bindings', 0, 'write', 'project_path'], 'zqsecret_project\u0000'),
    ],
    [
      'an absolute evidence path',
      (d) => set(d, ['observations', 0, 'original', 'path'], '/zqsecret_path/a.json'),
    ],
    ['an unknown key', (d) => set(d, ['objects', 0, 'ZqSecretKey'], 'ZqSecretTable')],
    [
      'a request resource of another service',
      (d) => set(d, ['request', 'resources', 0, 'service_id'], 'zqsecret-svc-other'),
    ],
    [
      'an unknown seal source',
      (d) => set(d, ['handoff', 'source_seals', 0, 'source_object_ids', 0], 'ZqSecretTable'),
    ],
    [
      'an effect on an undeclared object',
      (d) => set(d, ['workloads', 0, 'effects', 0, 'object_id'], 'ZqSecretTable'),
    ],
  ];

  it.each(edits)('refusing %s', (_label, edit) => {
    const doc = structuredClone(built.owner);
    edit(doc);
    expectNoLeak(decodeData(doc));
  });

  it('refusing bytes: a duplicate key, broken UTF-8 and a wrong digest', () => {
    const text = planted.bytes.toString('utf8');
    expectNoLeak(
      decodeRaw(Buffer.from(text.replace('{"claims":', '{"ZqSecretKey":1,"ZqSecretKey":2,"claims":'))),
    );
    const broken = Buffer.from(planted.bytes);
    broken[broken.indexOf('ZqSecretTable') + 3] = 0xff;
    expectNoLeak(decodeRaw(broken));
    expectNoLeak(decodeRaw(planted.bytes, '0'.repeat(64)));
  });

  it('refusing comparisons with the originals and an attempt', () => {
    const owner = ScopedExecutionOwner.fromBytes(planted.bytes, { expectedSha256: planted.sha256 });
    const grant = structuredClone(built.executionGrant);
    record(grant, 'claims', 0).service_id = 'zqsecret-svc-other';
    expectNoLeak(
      outcomeOf(() =>
        owner.requireOriginals({
          qualificationOwner: QualificationOwner.fromValue(built.qualificationOwner),
          qualificationGrant: CompositionGrant.fromValue(built.qualificationGrant),
          executionGrant: CompositionGrant.fromValue(grant),
        }),
      ),
    );
    const attempt = { ...structuredClone(built.attempts.nightly as Data), constituents: ['ZqSecretTable'] };
    expectNoLeak(outcomeOf(() => owner.requireAttempt(ActivationAttempt.fromValue(attempt))));
  });
});
