// Scaffold editable dbt Silver models from the evidence a data migration left:
// check that mapping, dry run and run manifest bind, then generate create-only
// into the client workspace the editions part created. The evidence here is
// SYNTHETIC (`evidence synth` is a fixture generator, not a loader). This
// domain's refusals never say more than a code and a field: the evidence
// describes a customer's schema.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'scaffold dbt Silver models from migration evidence';

export async function run(ctx) {
  ctx.cd(ctx.workDir);
  ctx.sealkit(
    [
      'evidence',
      'synth',
      '--out',
      'evidence',
      '--source',
      'sql',
      '--destination',
      'bigquery',
      '--source-binding-id',
      'shop_main',
    ],
    { lines: 1 },
  );
  const [manifest] = readdirSync(join(ctx.workDir, 'evidence', 'run-manifests'));
  ctx.variable('RUN_MANIFEST', `evidence/run-manifests/${manifest}`, '$(ls evidence/run-manifests/*.json)');
  const evidence = [
    '--mapping-file',
    'evidence/mapping.json',
    '--inventory-file',
    'evidence/dry-run.json',
    '--run-manifest',
    `evidence/run-manifests/${manifest}`,
    '--source-binding-id',
    'shop_main',
    '--max-evidence-age',
    '36h',
  ];
  ctx.sealkit(['evidence', 'check', ...evidence], { lines: 1 });
  const scaffold = [
    'scaffold',
    '--edition',
    'bigquery',
    '--workspace',
    'retail-client',
    '--source-id',
    'shop',
    ...evidence,
  ];
  ctx.say('Stage, seal, verify, then one no-replace rename into models/migration/generated/shop/:');
  ctx.sealkit(scaffold, { json: ['status', 'reason_codes', 'output', 'files'] });
  ctx.say('Build them offline on the synthetic Bronze rows synth wrote, beside the shipped models:');
  ctx.sealkit(
    [
      'edition',
      'check',
      'retail-client',
      '--target',
      'migration',
      '--vars',
      '{enable_migration_models: true}',
      '--fixtures',
      'retail-client/fixtures',
      '--fixtures',
      'evidence/fixtures',
    ],
    { tail: 1 },
  );
  ctx.say('Create-only: a second run is refused and never touches the published (possibly edited) models:');
  ctx.sealkit(scaffold, { json: ['status', 'reason_codes', 'output'] });
}
