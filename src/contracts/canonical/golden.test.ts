import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import npmCanonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../core/digest/index.js';
import { parseStrict } from '../../core/json/index.js';
import {
  baseProject,
  exampleGolden,
  exampleProject,
  filesOf,
  REPO_ROOT,
  source,
} from '../fixtures/resources.js';
import { contractJsonSchemas } from '../output/json-schemas.js';
import { projectionTree } from '../output/projection-tree.js';
import { ContractProject } from '../project/contract-project.js';
import { openContractProject } from '../project/open.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { canonicalizeProjection } from './canonical.js';
import { decodeProjection } from './decode.js';

let parser: SqlParser;
let example: ContractProject;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
  example = await openContractProject(exampleProject(), { parser });
});
afterAll(() => parser.close());

const contractIds = () =>
  example.outcomes.flatMap((outcome) =>
    outcome.kind !== 'Dashboard' && outcome.id !== null ? [outcome.id] : [],
  );

describe('golden canonical bytes of the retail example', () => {
  it('validates all eight resources', () => {
    expect(example.valid).toBe(true);
    expect(example.outcomes.map((outcome) => outcome.kind)).toEqual([
      'Dashboard',
      'Dashboard',
      'Model',
      'Model',
      'SemanticModel',
      'SemanticModel',
      'Source',
      'Source',
    ]);
  });

  it('projects byte for byte what examples/contracts/retail.golden holds, with the digests it lists', () => {
    const golden = exampleGolden();
    const tree = projectionTree(contractIds().map((id) => example.project(id)));
    const goldenFiles = [
      'index.json',
      ...readdirSync(join(golden, 'resources'))
        .sort()
        .map((name) => `resources/${name}`),
    ];
    expect(tree.map((file) => file.path.join('/')).sort()).toEqual(goldenFiles.sort());
    for (const file of tree) {
      // On purpose exact: regenerate with `sealkit contract project examples/contracts/retail --out …` only after review.
      expect(Buffer.from(file.bytes).toString('utf8')).toBe(readFileSync(join(golden, ...file.path), 'utf8'));
    }
    const index = parseStrict(readFileSync(join(golden, 'index.json'))) as {
      resources: { id: string; digest: string; file: string }[];
    };
    for (const entry of index.resources) {
      expect(sha256Prefixed(readFileSync(join(golden, entry.file)))).toBe(entry.digest);
      expect(example.project(entry.id).digest).toBe(entry.digest);
    }
  });

  it('is the same on a second, independent run', async () => {
    const again = await openContractProject(exampleProject(), { parser });
    for (const id of contractIds()) expect(again.project(id).digest).toBe(example.project(id).digest);
  });
});

describe('independent serialization corpus (npm canonicalize over the same projections)', () => {
  const tricky = [
    'order_id',
    'caf\u00e9',
    '\u{1F600}_emoji',
    '\uFF61_halfwidth',
    'line\u00a0nbsp',
    'quote"and\\backslash',
    'tab\there',
    'Ω',
    'z',
    '_',
  ];

  it('agrees byte for byte on the example projections', () => {
    for (const id of contractIds()) {
      const sealed = example.seal(id);
      const ours = Buffer.from(canonicalizeProjection(sealed).bytes).toString('utf8');
      expect(ours).toBe(npmCanonicalize(sealed.view()));
    }
  });

  it('agrees on projections whose names and texts sort differently by code unit and by code point', async () => {
    const docs = baseProject({
      'sources/orders.yaml': source({
        fields: tricky.map((name, index) => ({
          name,
          type: index % 2 === 0 ? 'string' : 'decimal(38,10)',
          deprecation: index === 0 ? { guidance: 'prefer "Ω" \\ over \u{1F600}\u2028' } : undefined,
        })),
      }),
    });
    const project = await ContractProject.fromFiles(filesOf(docs), parser);
    const sealed = project.seal('t.source.orders');
    const canonical = canonicalizeProjection(sealed);
    expect(Buffer.from(canonical.bytes).toString('utf8')).toBe(npmCanonicalize(sealed.view()));
    // UTF-16 order puts U+FF61 after U+1F600's surrogates; the names must come out in that order.
    const names = (
      decodeProjection(canonical.bytes).content as unknown as { fields: { name: string }[] }
    ).fields.map((field) => field.name);
    expect(names.indexOf('\u{1F600}_emoji')).toBeLessThan(names.indexOf('\uFF61_halfwidth'));
  });
});

describe('generated JSON Schemas in docs/schemas/contracts', () => {
  it('are current with the zod schemas', () => {
    // Regenerate: rm -r docs/schemas/contracts && sealkit contract schemas --out docs/schemas/contracts
    //             && npx biome format --write docs/schemas/contracts
    const dir = join(REPO_ROOT, 'docs', 'schemas', 'contracts');
    const generated = contractJsonSchemas();
    expect(readdirSync(dir).sort()).toEqual(generated.map((file) => file.path.join('/')).sort());
    for (const file of generated) {
      const onDisk = JSON.parse(readFileSync(join(dir, ...file.path), 'utf8')) as unknown;
      expect(onDisk).toEqual(JSON.parse(Buffer.from(file.bytes).toString('utf8')));
    }
  });
});
