// Data contracts: a retail project (sources, models, a semantic model each for
// orders and customers, two dashboards) validated and projected to
// leapview.contract/v1; canonical bytes and their SHA-256; what changes identity
// and what does not; refusals; sealing.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'contracts: validate a contract project, project it to canonical bytes and digests';

export async function run(ctx) {
  const project = join(ctx.workDir, 'contracts', 'retail');
  cpSync(join(ctx.root, 'examples', 'contracts', 'retail'), project, { recursive: true });

  ctx.say('Validate the example project: strict YAML, schemas, references, model SQL through DuckDB:');
  ctx.sealkit(['contract', 'validate', project]);

  ctx.say('Project every Source, Model and SemanticModel: version and SHA-256 of the RFC 8785 bytes:');
  const before = ctx.sealkit(['contract', 'project', project, '--json']);
  const digests = new Map(JSON.parse(before.stdout.toString()).resources.map((r) => [r.id, r.digest]));
  ctx.sealkit(['contract', 'project', project]);

  ctx.say('Write the canonical bytes (create-only, one atomic rename) and look at one:');
  const out = join(ctx.workDir, 'contracts', 'projections');
  ctx.sealkit(['contract', 'project', project, '--out', out]);
  const bytes = readFileSync(join(out, 'resources', 'retail.source.customers.json'));
  ctx.say(`${bytes.toString('utf8').slice(0, 240)}…`);

  ctx.say('Prose, tags, locations and credentials are not identity: editing them keeps every digest.');
  const sourceFile = join(project, 'sources', 'orders.yaml');
  const original = readFileSync(sourceFile, 'utf8');
  writeFileSync(
    sourceFile,
    original
      .replace('Orders as captured by the web shop, one row per order.', 'Rewritten description.')
      .replace('table: orders', 'table: orders_v2')
      .replace('secret_ref: shop-replica-reader', 'secret_ref: shop-replica-reader-2026'),
  );
  const prose = ctx.sealkit(['contract', 'project', project, '--resource', 'retail.source.orders', '--json']);
  const proseDigest = JSON.parse(prose.stdout.toString()).resources[0].digest;
  ctx.say(`unchanged: ${proseDigest === digests.get('retail.source.orders')}`);

  ctx.say('A projected value is identity: a field type change gives a new digest.');
  writeFileSync(sourceFile, original.replace('type: decimal(12,2)', 'type: decimal(14,2)'));
  const typed = ctx.sealkit(['contract', 'project', project, '--resource', 'retail.source.orders', '--json']);
  const typedDigest = JSON.parse(typed.stdout.toString()).resources[0].digest;
  ctx.say(`changed: ${typedDigest !== digests.get('retail.source.orders')}`);

  ctx.say('Refusals name a file by number, a reason code and a field path, never a name or a value:');
  writeFileSync(sourceFile, original.replace('  - name: currency', '  - name: currency\n    nulable: false'));
  ctx.sealkit(['contract', 'validate', project]);
  writeFileSync(
    sourceFile,
    original.replace(
      'https://glossary.retail.example/terms/order-id',
      'https://analyst:hunter2@glossary.retail.example/terms/order-id',
    ),
  );
  ctx.sealkit(['contract', 'project', project, '--json']);
  writeFileSync(sourceFile, original);

  ctx.say('Only sealed projections can be canonicalized; a decoded read view cannot be sealed again:');
  const { decodeProjection, canonicalizeProjection, Refusal } = await ctx.library();
  const view = decodeProjection(bytes);
  ctx.say(`decodeProjection(bytes) -> ${view.resource.kind} ${view.resource.id} ${view.contract.version}`);
  try {
    canonicalizeProjection(view);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    ctx.say(`canonicalizeProjection(view) -> refused ${error.code}: ${error.message}`);
  }
}
