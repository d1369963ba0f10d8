// Start a dbt project from a starter edition and check it offline: dbt's own
// JSON schemas, Jinja, SQL parsed and built on DuckDB, schema tests on the
// shipped Bronze fixtures; then a broken ref (in a copy, so that the scaffold
// part builds on a good workspace), refused with where and a suggestion.
export const title = 'start a dbt project and check it offline (no warehouse)';

export async function run(ctx) {
  ctx.cd(ctx.workDir);
  ctx.sealkit(['edition', 'new', '--edition', 'bigquery', 'retail-client'], { lines: 1 });
  ctx.sealkit(['edition', 'check', 'retail-client', '--fixtures', 'retail-client/fixtures'], { tail: 1 });

  ctx.say('A model that refers to a model the project does not have (in a copy of the workspace):');
  ctx.shell(
    "cp -r retail-client broken && sed -i \"s/ref('silver_order_items')/ref('silver_order_item')/\" broken/models/gold/gold_daily_revenue.sql",
  );
  ctx.sealkit(['edition', 'check', 'broken', '--fixtures', 'broken/fixtures'], { tail: 1, errors: 3 });
}
