import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../src/core/json/index.js';
import { bindEvidenceDocuments, type EvidenceOutcome } from '../src/migration/index.js';
import {
  ALIAS,
  bindFiles,
  fromSpec,
  generatedSpec,
  MAX_AGE,
  type MutableBundle,
  NOW,
  retailBundle,
  writeBundle,
} from '../src/migration/testing/bundles.js';
import type { Benchmark } from './harness.js';

function inMemory(bundle: MutableBundle): () => EvidenceOutcome {
  const documents = {
    mapping: bundle.mapping as JsonObject,
    dryRun: bundle.dryRun as JsonObject,
    runManifest: { document: bundle.runManifest as JsonObject, fileName: `${bundle.runId}.json` },
  };
  const invocation = { sourceBindingId: ALIAS, maxAge: MAX_AGE, now: NOW };
  return () => bindEvidenceDocuments(documents, invocation);
}

function requireBound(outcome: EvidenceOutcome): void {
  if (outcome.status !== 'bound') throw new Error('the benchmark bundle does not bind');
}

/**
 * The binding contract end to end: the canonical retail bundle read from
 * owner-only files (the private-file and mapping-file rules, strict parse,
 * field tables, binding steps 1–10), the same in memory, and the two
 * largest shapes the admission limits allow: 1,000 tables and 4,096 columns
 * per table.
 */
export const evidenceBenchmark: Benchmark = {
  name: 'evidence',
  description:
    'migration evidence: bind mapping + dry run + run manifest (admission, field tables, steps 1-10)',
  prepare() {
    const dir = mkdtempSync(join(tmpdir(), 'sealkit-bench-evidence-'));
    const retail = retailBundle();
    const paths = writeBundle(join(dir, 'retail'), retail);
    const tables = fromSpec(generatedSpec(1000, 8));
    const columns = fromSpec(generatedSpec(2, 4096));
    const variants = [
      { name: 'retail, in memory', run: inMemory(retail) },
      { name: 'retail, from files', run: () => bindFiles(paths) },
      { name: '1,000 tables x 8 columns, in memory', run: inMemory(tables) },
      { name: '2 tables x 4,096 columns, in memory', run: inMemory(columns) },
    ];
    for (const variant of variants) requireBound(variant.run());
    return {
      workload: '4 retail tables (16 columns); 1,000 tables x 8 columns; 2 tables x 4,096 columns',
      reference: 'retail, in memory',
      variants,
      dispose: () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};
