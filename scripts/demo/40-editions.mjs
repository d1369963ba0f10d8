// Tour of the starter editions: create a BigQuery client workspace, check it
// offline (schemas, Jinja, SQL, a DuckDB build and the schema tests on the
// shipped synthetic Bronze fixtures), open the migration gate, and see the
// copier refuse a destination that already exists.
import { join } from 'node:path';

export const title = 'editions: a client workspace and the offline dbt check';

export async function run(ctx) {
  const workspace = join(ctx.workDir, 'retail-client');

  ctx.say('Create a client workspace from the BigQuery edition (staged, verified, one no-replace rename):');
  const created = ctx.sealkit(['edition', 'new', '--edition', 'bigquery', workspace]);
  if (created.status !== 0) throw new Error('edition new failed');

  ctx.say(
    'Check it offline with the shipped Bronze fixtures: every model builds on DuckDB, every test runs:',
  );
  const check = ctx.sealkit(['edition', 'check', workspace, '--fixtures', join(workspace, 'fixtures')]);
  if (check.status !== 0) throw new Error('edition check failed');

  ctx.say(
    'Open the migration gate (target migration AND enable_migration_models): the migration models join the list:',
  );
  const migration = ctx.sealkit(
    [
      'edition',
      'check',
      workspace,
      '--target',
      'migration',
      '--vars',
      '{enable_migration_models: true}',
      '--fixtures',
      join(workspace, 'fixtures'),
    ],
    { env: { MIGRATION_BRONZE_NAMESPACE: 'starterkit_migration_demo' } },
  );
  if (migration.status !== 0) throw new Error('edition check --target migration failed');

  ctx.say('A workspace is only ever created new:');
  ctx.sealkit(['edition', 'new', '--edition', 'bigquery', workspace]);
}
