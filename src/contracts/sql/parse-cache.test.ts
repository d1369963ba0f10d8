import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cachingSqlParser,
  decodeSqlParseCache,
  encodeSqlParseCache,
  nestedAtMost,
  SQL_PARSE_CACHE_FORMAT,
  sqlTextKey,
} from './parse-cache.js';
import { createDuckDbSqlParser, type SqlParser } from './parser.js';

const PARSER = 'sealkit 1; duckdb 1';

/** DuckDB itself, with a record of the texts it was asked to parse. */
let duckdb: SqlParser;
const asked: string[][] = [];
const counted: SqlParser = {
  async serialize(texts) {
    asked.push([...texts]);
    return duckdb.serialize(texts);
  },
  close() {},
};
beforeAll(async () => {
  duckdb = await createDuckDbSqlParser();
});
afterAll(() => duckdb.close());

const A = 'select 1 as a';
const B = 'select o.id from orders as o';
const BROKEN = 'select from where';

describe('the SQL parse cache document', () => {
  it('round-trips, with the same bytes for the same answers in any order', () => {
    const one = new Map([
      [sqlTextKey(A), '{"a":1}'],
      [sqlTextKey(B), '{"b":2}'],
    ]);
    const other = new Map([...one].reverse());
    const bytes = encodeSqlParseCache(one, PARSER);
    expect(Buffer.from(encodeSqlParseCache(other, PARSER)).equals(Buffer.from(bytes))).toBe(true);
    expect(decodeSqlParseCache(bytes, PARSER)).toEqual(one);
    const text = Buffer.from(bytes).toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ format: SQL_PARSE_CACHE_FORMAT, parser: PARSER });
  });

  it('is ignored when written by another parser or in another format', () => {
    const answers = new Map([[sqlTextKey(A), '{"a":1}']]);
    expect(decodeSqlParseCache(encodeSqlParseCache(answers, PARSER), 'sealkit 2; duckdb 1').size).toBe(0);
    const text = Buffer.from(encodeSqlParseCache(answers, PARSER)).toString('utf8');
    const older = text.replace(SQL_PARSE_CACHE_FORMAT, 'sealkit-sql-parse-cache/0');
    expect(decodeSqlParseCache(Buffer.from(older), PARSER).size).toBe(0);
  });

  it('is ignored whole when damaged: an answer edited, truncated, or of the wrong shape', () => {
    const answers = new Map([
      [sqlTextKey(A), '{"a":1}'],
      [sqlTextKey(B), '{"b":2}'],
    ]);
    const text = Buffer.from(encodeSqlParseCache(answers, PARSER)).toString('utf8');
    expect(decodeSqlParseCache(Buffer.from(text.replace('{\\"a\\":1}', '{\\"a\\":9}')), PARSER).size).toBe(0);
    expect(decodeSqlParseCache(Buffer.from(text.slice(0, text.length - 10)), PARSER).size).toBe(0);
    expect(decodeSqlParseCache(Buffer.from('[]'), PARSER).size).toBe(0);
    expect(decodeSqlParseCache(Buffer.from(''), PARSER).size).toBe(0);
    const document = JSON.parse(text) as { entries: unknown[]; digest: string };
    document.entries = [['not-a-key', '{}']];
    expect(decodeSqlParseCache(Buffer.from(JSON.stringify(document)), PARSER).size).toBe(0);
  });
});

describe('the nesting check made before a cache file is parsed', () => {
  const depth = (text: string, limit: number) => nestedAtMost(Buffer.from(text), limit);

  it('passes a cache document (depth 3) and refuses one level more', () => {
    const bytes = encodeSqlParseCache(new Map([[sqlTextKey(A), '{"a":[[[[1]]]]}']]), PARSER);
    expect(nestedAtMost(bytes, 3)).toBe(true);
    expect(nestedAtMost(bytes, 2)).toBe(false);
    expect(depth('{"entries":[[[]]]}', 3)).toBe(false);
    expect(depth(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 3)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(depth('["[[[[", "\\"[[[[", "\\\\"]', 1)).toBe(true);
    expect(depth('["\\\\", [[]]]', 1)).toBe(false);
  });
});

describe('a parser answering from the cache', () => {
  it('asks DuckDB only for the texts the cache lacks, and returns its answers unchanged', async () => {
    asked.length = 0;
    const [a, b] = await duckdb.serialize([A, B]);
    const cached = cachingSqlParser(new Map([[sqlTextKey(A), a as string]]), counted);
    expect(await cached.parser.serialize([A, B, A])).toEqual([a, b, a]);
    expect(asked).toEqual([[B]]);
    expect(cached.changed()).toBe(true);
    expect(cached.answeredFromCache()).toBe(true);
    expect(cached.answersUsed()).toEqual(
      new Map([
        [sqlTextKey(A), a],
        [sqlTextKey(B), b],
      ]),
    );
  });

  it('never asks DuckDB when every text is cached, and then has nothing to write', async () => {
    asked.length = 0;
    const [a, b] = await duckdb.serialize([A, B]);
    const read = new Map([
      [sqlTextKey(A), a as string],
      [sqlTextKey(B), b as string],
    ]);
    const cached = cachingSqlParser(read, counted);
    expect(await cached.parser.serialize([B, A])).toEqual([b, a]);
    expect(asked).toEqual([]);
    expect(cached.changed()).toBe(false);
  });

  it('drops entries this run did not use', async () => {
    const [a, b] = await duckdb.serialize([A, B]);
    const read = new Map([
      [sqlTextKey(A), a as string],
      [sqlTextKey(B), b as string],
    ]);
    const cached = cachingSqlParser(read, counted);
    await cached.parser.serialize([A]);
    expect(cached.changed()).toBe(true);
    expect([...cached.answersUsed().keys()]).toEqual([sqlTextKey(A)]);
  });

  it("keeps DuckDB's error documents, and never a text the parser failed on", async () => {
    const failing: SqlParser = { serialize: async (texts) => texts.map(() => undefined), close() {} };
    const none = cachingSqlParser(new Map(), failing);
    expect(await none.parser.serialize([A])).toEqual([undefined]);
    expect(none.answersUsed().size).toBe(0);
    expect(none.changed()).toBe(false);
    expect(none.answeredFromCache()).toBe(false);

    const errors = cachingSqlParser(new Map(), counted);
    const [answer] = await errors.parser.serialize([BROKEN]);
    expect(answer).toContain('"error":true');
    expect(errors.answersUsed().get(sqlTextKey(BROKEN))).toBe(answer);
  });
});
