// Tour of the Silver scaffolder: a client workspace, synthetic evidence, a
// dry run, the create-only publication of editable Silver models, the
// published tree with its modes, the offline dbt check passing on it, and a
// rerun refused with output_exists. Everything is written under the demo directory.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'scaffold: evidence-bound Silver models, staged, sealed, verified, published once';

function expectExit(result, status) {
  if (result.status !== status) throw new Error(`expected exit ${status}, got ${result.status}`);
}

function mode(path) {
  return `0${(lstatSync(path).mode & 0o777).toString(8)}`;
}

export async function run(ctx) {
  const workspace = join(ctx.workDir, 'scaffold-client');
  const evidence = join(ctx.workDir, 'scaffold-evidence');

  ctx.say('A client workspace from the BigQuery edition (its root is the dbt project):');
  expectExit(ctx.sealkit(['edition', 'new', '--edition', 'bigquery', workspace]), 0);

  ctx.say('SYNTHETIC evidence of a SQL source loaded to BigQuery, recorded under the alias shop_main:');
  expectExit(
    ctx.sealkit([
      'evidence',
      'synth',
      '--out',
      evidence,
      '--source',
      'sql',
      '--destination',
      'bigquery',
      '--source-binding-id',
      'shop_main',
    ]),
    0,
  );
  const [manifest] = readdirSync(join(evidence, 'run-manifests'));
  const args = [
    'scaffold',
    '--edition',
    'bigquery',
    '--workspace',
    workspace,
    '--source-id',
    'shop',
    '--mapping-file',
    join(evidence, 'mapping.json'),
    '--inventory-file',
    join(evidence, 'dry-run.json'),
    '--run-manifest',
    join(evidence, 'run-manifests', manifest),
    '--source-binding-id',
    'shop_main',
    '--max-evidence-age',
    '36h',
  ];

  ctx.say(
    'Plan only: every check that needs no write, then the files a real run would publish (status plan_only):',
  );
  expectExit(ctx.sealkit([...args, '--dry-run']), 0);

  ctx.say(
    'Scaffold: bind the evidence, stage in .scaffold-staging/shop/, seal, verify, one no-replace rename, modes back to owner-writable:',
  );
  expectExit(ctx.sealkit(args), 0);

  const output = join(workspace, 'models', 'migration', 'generated', 'shop');
  ctx.say(
    [
      'The published tree (owner-only, editable right away; the staging root keeps only its empty lock file):',
      `  ${mode(output)}  models/migration/generated/shop/`,
      ...readdirSync(output)
        .sort()
        .map((name) => `  ${mode(join(output, name))}  models/migration/generated/shop/${name}`),
      ...readdirSync(join(workspace, '.scaffold-staging')).map(
        (name) => `  ${mode(join(workspace, '.scaffold-staging', name))}  .scaffold-staging/${name}`,
      ),
    ].join('\n'),
  );

  ctx.say(
    'The offline dbt check passes with the migration gate open; the scaffolded models are tagged scaffolded:',
  );
  expectExit(
    ctx.sealkit(
      ['edition', 'check', workspace, '--target', 'migration', '--vars', '{enable_migration_models: true}'],
      {
        env: { MIGRATION_BRONZE_NAMESPACE: 'starterkit_migration_demo' },
      },
    ),
    0,
  );

  ctx.say('Create-only: a second run never touches the published (possibly edited) models:');
  expectExit(ctx.sealkit(args), 2);
}
