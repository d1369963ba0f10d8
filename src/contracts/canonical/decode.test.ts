import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sha256Prefixed } from '../../core/digest/index.js';
import { canonicalize, canonicalizeToBytes, parseStrict } from '../../core/json/index.js';
import { baseProject, filesOf } from '../fixtures/resources.js';
import { ContractProject } from '../project/contract-project.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { canonicalizeProjection } from './canonical.js';
import { decodeProjection } from './decode.js';

let parser: SqlParser;
let project: ContractProject;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
  const docs = baseProject();
  project = await ContractProject.fromFiles(filesOf(docs), parser);
});
afterAll(() => parser.close());

type Mutable = { [key: string]: unknown };
const bytesOf = (id: string) => canonicalizeProjection(project.seal(id)).bytes;
const mutate = (id: string, change: (doc: Mutable) => void): Uint8Array => {
  const doc = parseStrict(bytesOf(id)) as unknown as Mutable;
  const copy = JSON.parse(JSON.stringify(doc)) as Mutable;
  change(copy);
  return canonicalizeToBytes(copy);
};
const code = (bytes: Uint8Array, expected?: Sha256Prefixed): string => {
  try {
    decodeProjection(bytes, expected);
  } catch (error: unknown) {
    return (error as { code: string }).code;
  }
  return 'accepted';
};

describe('publication decoding', () => {
  it('accepts exactly the canonical bytes of every kind and returns a frozen view', () => {
    for (const id of ['t.source.orders', 't.model.facts', 't.semantic.orders']) {
      const canonical = canonicalizeProjection(project.seal(id));
      const view = decodeProjection(canonical.bytes, canonical.digest);
      expect(canonicalize(view)).toBe(Buffer.from(canonical.bytes).toString('utf8'));
      expect(Object.isFrozen(view)).toBe(true);
    }
  });

  it('refuses bytes with another digest than expected', () => {
    const other = canonicalizeProjection(project.seal('t.source.orders')).digest;
    expect(code(bytesOf('t.model.facts'), other)).toBe('contract_projection_digest_mismatch');
  });

  it('refuses any other encoding of the same value', () => {
    const text = Buffer.from(bytesOf('t.source.orders')).toString('utf8');
    const pretty = JSON.stringify(JSON.parse(text), null, 1);
    expect(code(Buffer.from(pretty))).toBe('contract_projection_not_canonical');
    expect(code(Buffer.from(`${text}\n`))).toBe('contract_projection_not_canonical');
    const reordered = text
      .replace('{"content":', '{"profile":"leapview.contract/v1","content":')
      .replace(/,"profile":"leapview\.contract\/v1"/, '');
    expect(code(Buffer.from(reordered))).toBe('contract_projection_not_canonical');
    expect(code(Buffer.from(text.replace('"name":"amount"', '"name":"\\u0061mount"')))).toBe(
      'contract_projection_not_canonical',
    );
  });

  it('refuses values outside the closed representation', () => {
    expect(code(Buffer.from('not json'))).toBe('contract_projection_malformed');
    expect(
      code(
        mutate('t.source.orders', (doc) => {
          doc.profile = 'leapview.contract/v2';
        }),
      ),
    ).toBe('contract_projection_malformed');
    expect(
      code(
        mutate('t.source.orders', (doc) => {
          doc.extra = true;
        }),
      ),
    ).toBe('contract_projection_malformed');
    expect(
      code(
        mutate('t.model.facts', (doc) => {
          const sql = (doc.content as Mutable).sql as Mutable;
          sql.node = 'window';
        }),
      ),
    ).toBe('contract_projection_malformed');
    expect(
      code(
        mutate('t.model.facts', (doc) => {
          const sql = (doc.content as Mutable).sql as Mutable;
          (sql.select as Mutable[])[0] = {
            expr: { node: 'column', name: 'x', qualifier: null, extra: 1 },
            alias: null,
          };
        }),
      ),
    ).toBe('contract_projection_malformed');
    expect(code(Buffer.from('{"profile":"leapview.contract/v1","content":1.5}'))).toBe(
      'contract_projection_malformed',
    );
  });

  it('refuses values that are not in the normal form projection writes', () => {
    const fields = (doc: Mutable) => (doc.content as Mutable).fields as Mutable[];
    expect(code(mutate('t.source.orders', (doc) => void fields(doc).reverse()))).toBe(
      'contract_projection_not_canonical',
    );
    expect(
      code(
        mutate('t.source.orders', (doc) => {
          (fields(doc)[0] as Mutable).name = 'cafe\u0301';
        }),
      ),
    ).toBe('contract_projection_not_canonical');
    expect(
      code(
        mutate('t.source.orders', (doc) => {
          (fields(doc)[0] as Mutable).authoritative_definitions = ['HTTPS://Docs.Example/'];
        }),
      ),
    ).toBe('contract_projection_not_canonical');
    expect(
      code(
        mutate('t.semantic.orders', (doc) => {
          const filter = ((doc.content as Mutable).filters as Mutable[])[0] as Mutable;
          const condition = (filter.conditions as Mutable[])[0] as Mutable;
          condition.values = [
            { type: 'string', value: 'a' },
            { type: 'string', value: 'b' },
          ];
        }),
      ),
    ).toBe('contract_projection_not_canonical');
  });
});
