import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planCheck } from '../src/editions/check/plan.js';
import { readProjectFiles } from '../src/editions/check/project-files.js';
import { AJV_OPTIONS, compileDbtSchemas, loadDbtSchemas } from '../src/editions/check/schemas.js';
import { editionsRoot, schemasRoot } from '../src/editions/installation.js';
import type { Answer, Request } from './editions-worker.js';
import type { Benchmark } from './harness.js';
import { startSyncWorker } from './sync-worker.js';

const EXTRA_MODELS = 200;

/** A scaffolded-style Silver model: casts and the key policy through the edition macros. */
function generatedModel(index: number): string {
  return [
    'with bronze as (',
    "    select * from {{ source('bronze', 'orders') }}",
    ')',
    'select',
    "    {{ starter_cast('order_id', 'string') }} as order_id,",
    "    {{ starter_foreign_key('customer_id') }} as customer_id,",
    "    {{ starter_cast('order_status', 'string') }} as order_status,",
    "    {{ starter_cast('order_date', 'date') }} as order_date,",
    "    {{ starter_cast('updated_at', 'timestamp') }} as updated_at",
    'from bronze',
    `where {{ starter_key_is_present('order_id') }} and ${index} = ${index}`,
    '',
  ].join('\n');
}

/**
 * The offline check's planning half (no DuckDB): reading the project, then
 * schema validation, enablement and Jinja rendering of every model. The
 * workload is the BigQuery edition plus 200 generated Silver models.
 */
export const editionCheckPlanBenchmark: Benchmark = {
  name: 'edition-check-plan',
  description: `offline dbt check before DuckDB: read + validate + resolve + render (BigQuery edition + ${EXTRA_MODELS} generated models)`,
  prepare() {
    const project = join(mkdtempSync(join(tmpdir(), 'sealkit-bench-check-')), 'project');
    cpSync(join(editionsRoot(), 'Bigquery'), project, { recursive: true });
    mkdirSync(join(project, 'models', 'generated'));
    for (let i = 0; i < EXTRA_MODELS; i += 1)
      writeFileSync(join(project, 'models', 'generated', `generated_orders_${i}.sql`), generatedModel(i));
    const schemas = loadDbtSchemas();
    const options = { target: 'migration', vars: { enable_migration_models: true }, env: {} };
    const files = readProjectFiles(project);
    const plan = planCheck(files, schemas, options);
    const failed = plan.models.filter((model) => model.finding !== undefined);
    if (plan.models.length !== 10 + EXTRA_MODELS || failed.length > 0)
      throw new Error('the benchmark project does not plan cleanly');
    return {
      workload: `${plan.models.length} models, ${plan.tests.length} tests, ${plan.files.length} YAML files`,
      reference: 'read + plan',
      variants: [
        { name: 'read + plan', run: () => planCheck(readProjectFiles(project), schemas, options) },
        { name: 'read project files only', run: () => readProjectFiles(project) },
        { name: 'plan only (files in memory)', run: () => planCheck(files, schemas, options) },
        { name: "compile dbt's schemas (once per process)", run: () => compileDbtSchemas(schemasRoot()) },
        {
          name: "compile dbt's schemas (ajv defaults, allErrors)",
          run: () =>
            compileDbtSchemas(schemasRoot(), { ...AJV_OPTIONS, inlineRefs: true, code: { optimize: true } }),
        },
      ],
    };
  },
};

/**
 * `edition new` against a plain recursive copy: the price of staging through
 * held descriptors, fsyncing every file and folder, reading the stage back to
 * verify it, and publishing with one no-replace rename.
 */
export const editionNewBenchmark: Benchmark = {
  name: 'edition-new',
  description: 'create a BigQuery workspace (then remove it): sealkit edition new against fs.cpSync',
  prepare() {
    const base = mkdtempSync(join(tmpdir(), 'sealkit-bench-new-'));
    const source = join(editionsRoot(), 'Bigquery');
    let counter = 0;
    // The copy is asynchronous: it runs in a worker the harness waits on (bench/sync-worker.ts).
    const worker = startSyncWorker<Request, Answer>(
      new URL('./editions-worker.js', import.meta.url),
      {},
      'edition new',
    );
    const probe = worker.call({ dest: join(base, 'probe') });
    rmSync(join(base, 'probe'), { recursive: true });
    return {
      workload: `${probe.files} files in ${probe.dirs} folders`,
      reference: 'fs.cpSync (no fsync, no verify)',
      variants: [
        {
          name: 'sealkit edition new',
          run: () => {
            const dest = join(base, `ws${counter++}`);
            worker.call({ dest });
            rmSync(dest, { recursive: true });
          },
        },
        {
          name: 'fs.cpSync (no fsync, no verify)',
          run: () => {
            const dest = join(base, `cp${counter++}`);
            cpSync(source, dest, { recursive: true, filter: (path) => !path.endsWith('/.ci') });
            rmSync(dest, { recursive: true });
          },
        },
      ],
      dispose: () => {
        worker.close();
        rmSync(base, { recursive: true, force: true });
      },
    };
  },
};
