import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/resources.js';
import { contractJsonSchemas } from '../output/json-schemas.js';

/**
 * The Authoring section of docs/contracts.md is where a user learns what a
 * resource file may hold: every key and every enumerated value the
 * authoring schemas accept must be written there, so none is found only by
 * trial and error.
 */
const docs = readFileSync(join(REPO_ROOT, 'docs', 'contracts.md'), 'utf8');
const authoring = docs.slice(docs.indexOf('\n## Authoring\n'), docs.indexOf('\n## Identity'));

type Schema = {
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly additionalProperties?: Schema | boolean;
  readonly $defs?: Readonly<Record<string, Schema>>;
};

/** Every property name and every string enum value, anywhere in a schema. */
function wordsOf(schema: Schema, into: Set<string>): Set<string> {
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    into.add(key);
    wordsOf(child, into);
  }
  for (const value of schema.enum ?? []) if (typeof value === 'string') into.add(value);
  if (typeof schema.const === 'string') into.add(schema.const);
  for (const child of [
    ...(schema.items === undefined ? [] : [schema.items]),
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.allOf ?? []),
    ...Object.values(schema.$defs ?? {}),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ])
    wordsOf(child, into);
  return into;
}

describe('the Authoring section of docs/contracts.md', () => {
  const kinds = contractJsonSchemas().filter(
    (file) => file.path.at(-1) !== 'projection.schema.json' && file.path.at(-1) !== 'resource.schema.json',
  );

  it('regression: names every key and every accepted value of the authoring schemas', () => {
    expect(kinds).toHaveLength(4);
    const missing = kinds.flatMap((file) => {
      const schema = JSON.parse(Buffer.from(file.bytes).toString('utf8')) as Schema;
      return [...wordsOf(schema, new Set())]
        .filter((word) => !new RegExp(`(^|[^a-z_])${word}([^a-z_]|$)`).test(authoring))
        .map((word) => `${file.path.at(-1)}: ${word}`);
    });
    expect(missing).toEqual([]);
  });
});
