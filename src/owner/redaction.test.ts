import { describe, expect, it } from 'vitest';
import { LOCATED_FAULTS } from '../../test/helpers/sentinels.js';
import { sha256Hex } from '../core/digest/index.js';
import { parseStrict } from '../core/json/index.js';
import { Refusal } from '../core/refusal/index.js';
import { guardScoped } from './canonical.js';
import { buildOwner, toCanonical } from './fixtures/build.js';
import { MSSQL_CLICKHOUSE } from './fixtures/cells.js';
import {
  ActivationAttempt,
  ActivationRequest,
  CompositionGrant,
  QualificationOperation,
  QualificationOwner,
  refuseScopedExecution,
  ScopedExecutionOwner,
} from './index.js';

/**
 * The owner codec describes no payload, not even by position: every refusal
 * it hands out has no location and no hint, although core JSON now reports
 * a line and column (docs/owner.md#reasons).
 */

function refusalOf(work: () => unknown): Refusal {
  try {
    work();
  } catch (error: unknown) {
    if (error instanceof Refusal) return error;
    throw new Error('expected a Refusal, got another exception');
  }
  throw new Error('expected a Refusal, got a value');
}

function expectUnlocated(refusal: Refusal): void {
  expect(refusal.code).toMatch(/^scoped_execution_/);
  expect(refusal.location).toBeUndefined();
  expect(refusal.hint).toBeUndefined();
  expect(Object.keys(refusal.toJSON())).not.toContain('location');
}

describe('the owner codec refuses located faults without a location', () => {
  it.each(LOCATED_FAULTS)('$name', ({ bytes }) => {
    // The control: core JSON reports this fault with a line and column.
    expect(refusalOf(() => parseStrict(bytes)).location?.line).toBeGreaterThanOrEqual(1);
    const expectedSha256 = sha256Hex(bytes);
    const decoders: readonly (() => unknown)[] = [
      () => ScopedExecutionOwner.fromBytes(bytes, { expectedSha256 }),
      () => ActivationRequest.fromBytes(bytes),
      () => CompositionGrant.fromBytes(bytes, { expectedSha256 }),
      () => QualificationOwner.fromBytes(bytes),
      () => QualificationOperation.fromBytes(bytes),
      () => ActivationAttempt.fromBytes(bytes),
    ];
    for (const decode of decoders) expectUnlocated(refusalOf(decode));
  });

  it('refuses a mismatched original without a location', () => {
    const built = buildOwner(MSSQL_CLICKHOUSE);
    const { bytes, sha256 } = toCanonical(built.owner);
    const owner = ScopedExecutionOwner.fromBytes(bytes, { expectedSha256: sha256 });
    const grant = CompositionGrant.fromBytes(toCanonical(built.qualificationGrant).bytes);
    const refusal = refusalOf(() =>
      owner.requireOriginals({
        qualificationOwner: QualificationOwner.fromBytes(toCanonical(built.qualificationOwner).bytes),
        qualificationGrant: grant,
        executionGrant: grant,
      }),
    );
    expectUnlocated(refusal);
  });
});

describe('guardScoped', () => {
  const site = { reason: 'scoped_execution_document', role: 'owner' } as const;

  it("lets the codec's own refusal out redacted", () => {
    const refusal = refusalOf(() =>
      guardScoped(site, () => {
        throw refuseScopedExecution('scoped_execution_object', {
          location: { line: 3, column: 8 },
          hint: 'planted',
        });
      }),
    );
    expect(refusal.code).toBe('scoped_execution_object');
    expectUnlocated(refusal);
  });

  it("turns a core refusal and any other exception into the site's reason", () => {
    const core = refusalOf(() => guardScoped(site, () => parseStrict(Buffer.from('[1,,2]'))));
    const other = refusalOf(() =>
      guardScoped(site, () => {
        throw new TypeError('planted text');
      }),
    );
    for (const refusal of [core, other]) {
      expect(refusal.code).toBe('scoped_execution_document');
      expect(refusal.role).toBe('owner');
      expectUnlocated(refusal);
    }
  });
});
