import { describe, expect, it } from 'vitest';
import { buildOwner, type OwnerSpec, toCanonical } from './fixtures/build.js';
import { SQLSERVER_DBT } from './fixtures/cells.js';
import type { Mutable } from './fixtures/json-path.js';
import { ActivationAttempt, ScopedExecutionOwner } from './index.js';

/**
 * R, E and A are three distinct subjects. Deleting a read, a retained helper,
 * an observation or a source-seal association leaves a valid owner whose E
 * differs while R, the legacy write projection and the attempts bound to R
 * stay exactly the same: the owner subject is not a fallback to R.
 */

function decode(spec: OwnerSpec) {
  const built = buildOwner(spec);
  const { bytes, sha256 } = toCanonical(built.owner);
  return { built, owner: ScopedExecutionOwner.fromBytes(bytes, { expectedSha256: sha256 }) };
}

function edited(edit: (spec: Mutable<OwnerSpec>) => void): OwnerSpec {
  const spec = structuredClone(SQLSERVER_DBT) as Mutable<OwnerSpec>;
  edit(spec);
  return spec as OwnerSpec;
}

const deletions: readonly (readonly [string, OwnerSpec])[] = [
  [
    'a read',
    edited((spec) => {
      const nightly = spec.workloads[0];
      if (nightly)
        nightly.effects = nightly.effects.filter(([o, , p]) => !(o === 'raw_orders' && p === 'helper'));
    }),
  ],
  [
    'a retained helper (object, claim subject, observation entry and effect)',
    edited((spec) => {
      const warehouse = spec.domains[0];
      if (warehouse) warehouse.objects = warehouse.objects.filter((o) => o.id !== 'helper_calendar');
      const nightly = spec.workloads[0];
      if (nightly) nightly.effects = nightly.effects.filter(([o]) => o !== 'helper_calendar');
    }),
  ],
  [
    'an observation (with its read-only domain, epoch move and source-seal association)',
    edited((spec) => {
      spec.domains = spec.domains.filter((domain) => domain.key !== 'crm');
      const nightly = spec.workloads[0];
      if (nightly) nightly.effects = nightly.effects.filter(([o]) => o !== 'crm_customers');
    }),
  ],
  [
    'a source-seal association (its sources associated with the other seal)',
    edited((spec) => {
      spec.seals = [['crm_customers', 'raw_orders']];
    }),
  ],
];

describe('deleting scope changes E, never R or the legacy write projection', () => {
  const base = decode(SQLSERVER_DBT);

  it.each(deletions)('deleting %s', (_label, spec) => {
    const { built, owner } = decode(spec);
    expect(owner.subjectSha256).not.toBe(base.owner.subjectSha256);
    expect(owner.requestSha256).toBe(base.owner.requestSha256);
    expect(owner.writeProjection()).toEqual(base.owner.writeProjection());
    expect(owner.ownerKey).toBe(base.owner.ownerKey);
    // A still names R and validates against the smaller owner unchanged.
    for (const id of ['nightly', 'unit_tests']) {
      const attempt = ActivationAttempt.fromValue(base.built.attempts[id]);
      expect(attempt.sha256).toBe(ActivationAttempt.fromValue(built.attempts[id]).sha256);
      expect(() => owner.requireAttempt(attempt)).not.toThrow();
    }
  });

  it('keeps R, E and A distinct', () => {
    const attempt = ActivationAttempt.fromValue(base.built.attempts.nightly);
    const subjects = new Set([base.owner.requestSha256, base.owner.subjectSha256, attempt.sha256]);
    expect(subjects.size).toBe(3);
  });
});
