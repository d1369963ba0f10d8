import { pick as pickFrom, seededRandom } from './prng.js';

export type PlainJson =
  | null
  | boolean
  | number
  | string
  | readonly PlainJson[]
  | { readonly [key: string]: PlainJson };

// Mostly ASCII, with the characters that make serializers and parsers work:
// quotes, backslashes, control characters (escaped on output), 2-, 3- and
// 4-byte UTF-8 (the last one a surrogate pair in UTF-16).
const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-./:'.split(''),
  ...'abcdefghijklmnopqrstuvwxyz     '.split(''),
  '"',
  '\\',
  '\n',
  '\t',
  '\u0001',
  'é',
  'ß',
  'Ж',
  '中',
  '€',
  '\u2028',
  '😀',
  '𝄞',
];

const FIXED_KEYS = ['id', 'name', 'kind', 'owner', 'created_at', 'score', 'tags', 'attributes', 'children'];

/**
 * A deterministic JSON-like value whose `JSON.stringify` text is about
 * `targetBytes` bytes long in UTF-8: an array of records with nested objects and arrays,
 * strings with escapes and non-ASCII text, integers and fractional numbers.
 */
export function generateValue(targetBytes: number, seed: number): PlainJson[] {
  const random = seededRandom(seed);
  const int = (limit: number): number => Math.floor(random() * limit);
  const pick = <T>(items: readonly T[]): T => pickFrom(random, items);

  const text = (maxLength: number): string => {
    let out = '';
    const length = int(maxLength) + 1;
    for (let i = 0; i < length; i++) out += pick(ALPHABET);
    return out;
  };
  const key = (): string => (random() < 0.6 ? pick(FIXED_KEYS) : text(12));
  const scalar = (): PlainJson => {
    const roll = random();
    if (roll < 0.35) return text(40);
    if (roll < 0.6) return int(2 ** 31) - 2 ** 30;
    if (roll < 0.8) return Math.round((random() - 0.5) * 1e6) / 1e3;
    if (roll < 0.88) return random() * 10 ** (int(34) - 20);
    if (roll < 0.95) return random() < 0.5;
    return null;
  };
  const node = (depth: number): PlainJson => {
    const roll = random();
    if (depth >= 6 || roll < 0.55) return scalar();
    if (roll < 0.75) return Array.from({ length: int(6) }, () => node(depth + 1));
    const record: Record<string, PlainJson> = {};
    const size = int(7);
    for (let i = 0; i < size; i++) record[key()] = node(depth + 1);
    return record;
  };

  const records: PlainJson[] = [];
  let size = 2;
  while (size < targetBytes) {
    const record: Record<string, PlainJson> = {
      id: records.length,
      name: text(24),
      kind: pick(['table', 'view', 'model', 'report']),
      score: Math.round(random() * 1e5) / 1e2,
      tags: Array.from({ length: int(5) }, () => text(8)),
      attributes: node(1),
      children: Array.from({ length: int(4) }, () => node(2)),
    };
    records.push(record);
    size += Buffer.byteLength(JSON.stringify(record)) + 1;
  }
  return records;
}
