import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyDumps } from '../core/json/index.js';
import { at } from '../core/list/index.js';
import { toCanonical } from './fixtures/build.js';
import { buildCell, CELL_SPECS } from './fixtures/cells.js';
import {
  ActivationAttempt,
  ActivationRequest,
  CompositionGrant,
  EXECUTION_CELLS,
  guardIdOf,
  QualificationOwner,
  ScopedExecutionOwner,
} from './index.js';

const GOLDEN = join(import.meta.dirname, 'testdata');

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe.each(EXECUTION_CELLS)('the valid %s fixture', (cell) => {
  const built = buildCell(cell);
  const { bytes, sha256: digest } = toCanonical(built.owner);
  const owner = ScopedExecutionOwner.fromBytes(bytes, { expectedSha256: digest });

  it('decodes, and bytes → value → bytes is the identity', () => {
    expect(Buffer.from(owner.toBytes()).equals(bytes)).toBe(true);
    expect(Buffer.from(ScopedExecutionOwner.fromValue(owner.toJSON()).toBytes()).equals(bytes)).toBe(true);
    expect(Buffer.from(ScopedExecutionOwner.fromValue(built.owner).toBytes()).equals(bytes)).toBe(true);
  });

  it('matches its golden file byte for byte', () => {
    // Regenerate after an intended fixture change: write toCanonical(buildCell(cell).owner).bytes.
    expect(bytes.equals(readFileSync(join(GOLDEN, `${cell}.owner.json`)))).toBe(true);
  });

  it("is Python's json.dumps(sort_keys=True, ensure_ascii=False, separators=(',', ':')) of itself", () => {
    const python = spawnSync(
      'python3',
      [
        '-c',
        'import json,sys\nd=json.loads(sys.stdin.buffer.read())\n' +
          'sys.stdout.buffer.write(json.dumps(d,sort_keys=True,ensure_ascii=False,separators=(",",":")).encode())',
      ],
      { input: bytes },
    );
    expect(python.status).toBe(0);
    expect(python.stdout.equals(bytes)).toBe(true);
  });

  it('names R, E, the owner reference and every execution epoch', () => {
    const request = built.request;
    expect(owner.subjectSha256).toBe(sha256(bytes));
    expect(owner.requestSha256).toBe(sha256(pyDumps(request)));
    expect(owner.request.sha256).toBe(owner.requestSha256);
    expect(owner.ownerReference).toEqual({ kind: 'execution', activationId: request.activation_id });
    expect(owner.ownerKey).toBe(`execution:${request.activation_id}`);
    const expected = CELL_SPECS[cell].domains
      .map((domain) => {
        const claim = (built.owner.claims as { service_id: string; physical_subject_sha256: string }[]).find(
          (entry) => entry.service_id === domain.serviceId,
        );
        const guardId = guardIdOf({
          connector: domain.connector,
          service_id: domain.serviceId,
          physical_subject_sha256: claim?.physical_subject_sha256 as never,
        });
        return { guardId, epoch: domain.qualificationEpoch + 1n };
      })
      .sort((a, b) => (a.guardId < b.guardId ? -1 : 1));
    expect(owner.guardEpochs).toEqual(expected);
    expect(owner.describe()).toEqual({
      ownerReference: owner.ownerReference,
      ownerKey: owner.ownerKey,
      requestSha256: owner.requestSha256,
      subjectSha256: owner.subjectSha256,
      guardEpochs: expected,
    });
  });

  it('requires its exact originals', () => {
    const originals = {
      qualificationOwner: QualificationOwner.fromValue(built.qualificationOwner),
      qualificationGrant: CompositionGrant.fromValue(built.qualificationGrant),
      executionGrant: CompositionGrant.fromValue(built.executionGrant),
    };
    expect(() => owner.requireOriginals(originals)).not.toThrow();
    expect(ActivationRequest.fromValue(built.request).sha256).toBe(owner.requestSha256);
  });

  it('validates every attempt and returns the epochs all declared effects of its workload select', () => {
    const spec = CELL_SPECS[cell];
    const guardOfObject = new Map<string, string>();
    for (const object of built.owner.objects as { object_id: string }[]) {
      guardOfObject.set(object.object_id, guardIdOf(object as never));
    }
    const epochOf = new Map(owner.guardEpochs.map((entry) => [entry.guardId as string, entry.epoch]));
    for (const workload of spec.workloads) {
      const attemptData = built.attempts[workload.id];
      const attempt = ActivationAttempt.fromValue(attemptData);
      expect(attempt.sha256).toBe(sha256(toCanonical(attemptData).bytes));
      expect(attempt.value.activation_request_sha256).toBe(owner.requestSha256);
      const guards = [
        ...new Set(workload.effects.map(([object]) => guardOfObject.get(object) as string)),
      ].sort();
      expect(owner.requireAttempt(attempt)).toEqual(
        guards.map((guardId) => ({ guardId, epoch: epochOf.get(guardId) })),
      );
    }
  });

  it('is deeply frozen and hands out only detached copies', () => {
    expect(Object.isFrozen(owner)).toBe(true);
    const copy = owner.toJSON() as { objects: { object_id: string }[] };
    at(copy.objects, 0).object_id = 'changed';
    expect(Buffer.from(owner.toBytes()).equals(bytes)).toBe(true);
    const epochs = owner.guardEpochs;
    expect(Object.isFrozen(epochs) && Object.isFrozen(epochs[0])).toBe(true);
  });
});
