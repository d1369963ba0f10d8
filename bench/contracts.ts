import type { Answer, Request } from './contracts-worker.js';
import type { Benchmark } from './harness.js';
import { type SyncWorker, startSyncWorker } from './sync-worker.js';

const RESOURCES = 10_000;
const SEED = 0xc0ffee;

/** Runs one pipeline request in the worker and blocks until its answer. */
function bridge(): SyncWorker<Request, Answer> {
  return startSyncWorker(
    new URL('./contracts-worker.js', import.meta.url),
    { resources: RESOURCES, seed: SEED },
    'contracts',
  );
}

/**
 * Projection of a generated 10,000-resource contract project: strict YAML,
 * schema validation, reference resolution, model SQL through DuckDB's parser
 * (one batch), typed normalization, sealing, RFC 8785 and SHA-256 for every
 * Source, Model and SemanticModel. The DuckDB share is the "DuckDB only"
 * variant's ratio to the full pipeline.
 */
export const contractsBenchmark: Benchmark = {
  name: 'contracts',
  description: `contract projection of ${RESOURCES.toLocaleString('en-US')} generated resources (resources/s = ${RESOURCES} / time)`,
  prepare() {
    const pipeline = bridge();
    const full = pipeline.call('full');
    const cached = pipeline.call('cached');
    if (full.checksum !== cached.checksum || full.projected !== cached.projected) {
      throw new Error('the cached-parser run disagrees with the DuckDB run');
    }
    return {
      workload: `${RESOURCES} resources (${full.projected} projected, ${full.modelSql} model SQL texts; dashboards validated only)`,
      reference: 'full pipeline (DuckDB parse + projection)',
      variants: [
        { name: 'full pipeline (DuckDB parse + projection)', run: () => pipeline.call('full') },
        { name: 'without DuckDB (parser answers cached)', run: () => pipeline.call('cached') },
        { name: 'DuckDB json_serialize_sql only', run: () => pipeline.call('duckdb') },
      ],
    };
  },
};
