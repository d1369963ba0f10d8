import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCATED_FAULTS } from '../../test/helpers/sentinels.js';
import { parseStrict } from '../core/json/index.js';
import { Refusal } from '../core/refusal/index.js';
import {
  bindEvidence,
  guardPrivate,
  guardPrivateAsync,
  loadMappingFile,
  planSynthesis,
  readMappingDocument,
  readPrivateEvidenceJson,
  refuseEvidence,
  synthesizeEvidence,
} from './index.js';
import { MAX_AGE, NOW, retailBundle, writeBundle } from './testing/bundles.js';

/**
 * The evidence library hands out only redacted refusals: no location and no
 * hint, even though core JSON refusals now carry a line and column
 * (docs/evidence.md#privacy).
 */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

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
  expect(refusal.location).toBeUndefined();
  expect(refusal.hint).toBeUndefined();
  expect(refusal.also).toEqual([]);
  expect(Object.keys(refusal.toJSON())).not.toContain('location');
}

describe('guardPrivate', () => {
  const located = () =>
    refuseEvidence('scaffold_input_malformed', {
      role: 'mapping',
      location: { path: 'mapping.json', line: 3, column: 8 },
      hint: 'did you mean x?',
    });

  it('lets a refusal out without its location or hint, keeping code and role', () => {
    const refusal = refusalOf(() =>
      guardPrivate(() => {
        throw located();
      }),
    );
    expect(refusal.code).toBe('scaffold_input_malformed');
    expect(refusal.role).toBe('mapping');
    expectUnlocated(refusal);
  });

  it('turns any other exception into the fallback, whose text is fixed', () => {
    const refusal = refusalOf(() =>
      guardPrivate(
        () => {
          throw new Error('/home/zq/secret path');
        },
        () => refuseEvidence('scaffold_input_not_private', { role: 'mapping' }),
      ),
    );
    expect(refusal.code).toBe('scaffold_input_not_private');
  });

  it('does the same asynchronously', async () => {
    const error = await guardPrivateAsync(async () => {
      throw located();
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Refusal);
    expectUnlocated(error as Refusal);
  });
});

describe('the evidence readers refuse located faults without a location', () => {
  it.each(LOCATED_FAULTS)('$name', ({ bytes }) => {
    // The control: core JSON reports this fault with a line and column.
    expect(refusalOf(() => parseStrict(bytes)).location?.line).toBeGreaterThanOrEqual(1);
    const dir = mkdtempSync(join(tmpdir(), 'sealkit-evidence-boundary-'));
    roots.push(dir);
    const paths = writeBundle(join(dir, 'bundle'), retailBundle({ destination: 'bigquery' }), {
      mapping: bytes,
      dryRun: bytes,
      runManifest: bytes,
    });
    const refusals = [
      refusalOf(() => readMappingDocument(paths.mappingFile)),
      refusalOf(() => loadMappingFile(paths.mappingFile)),
      refusalOf(() => readPrivateEvidenceJson(paths.dryRunFile, 'dry_run')),
      refusalOf(() => readPrivateEvidenceJson(paths.runManifestFile, 'run_manifest')),
    ];
    const outcome = bindEvidence({
      mappingFile: paths.mappingFile,
      dryRunFile: paths.dryRunFile,
      runManifestFile: paths.runManifestFile,
      sourceBindingId: 'synthetic_retail',
      maxAge: MAX_AGE,
      now: NOW,
    });
    if (outcome.status !== 'refused') throw new Error('expected a refused outcome');
    refusals.push(outcome.refusal);
    for (const refusal of refusals) {
      expect(refusal.code).toBe('scaffold_input_malformed');
      expectUnlocated(refusal);
    }
  });

  it('refuses synthesis options and outputs without a location', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sealkit-evidence-boundary-'));
    roots.push(dir);
    const invalid = refusalOf(() =>
      planSynthesis({ source: 'sql', destination: 'bigquery', sourceBindingId: 'Not An Alias' }),
    );
    expect(invalid.code).toBe('evidence_synth_option_invalid');
    const missing = await synthesizeEvidence({
      source: 'sql',
      destination: 'bigquery',
      out: join(dir, 'absent', 'out'),
    }).then(
      () => {
        throw new Error('expected a Refusal, got a value');
      },
      (error: unknown) => {
        if (error instanceof Refusal) return error;
        throw new Error('expected a Refusal, got another exception');
      },
    );
    expect(missing.code).toBe('evidence_synth_parent_missing');
    for (const refusal of [invalid, missing]) expectUnlocated(refusal);
  });
});
