// Start a dbt project from a starter edition and check it offline: dbt's own
// JSON schemas, Jinja, SQL parsed and built on DuckDB, schema tests on the
// shipped Bronze fixtures; then a broken ref, refused with where and a
// suggestion.
import { join } from 'node:path';

export const title = 'start a dbt project and check it offline (no warehouse)';

export async function run(ctx) {
  ctx.cd(ctx.workDir);
  ctx.sealkit(['edition', 'new', '--edition', 'bigquery', 'retail-client'], { lines: 1 });
  ctx.cd(join(ctx.workDir, 'retail-client'));
  ctx.sealkit(['edition', 'check', '.', '--fixtures', 'fixtures'], { tail: 1 });

  ctx.say('A model that refers to a model the project does not have:');
  ctx.shell(
    "sed -i \"s/ref('silver_order_items')/ref('silver_order_item')/\" models/gold/gold_daily_revenue.sql",
  );
  ctx.sealkit(['edition', 'check', '.', '--fixtures', 'fixtures'], { tail: 1, errors: 3 });
}
