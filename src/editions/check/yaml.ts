import { parseDocument } from 'yaml';

export type YamlValue = null | boolean | number | string | readonly YamlValue[] | YamlMapping;
export interface YamlMapping {
  readonly [key: string]: YamlValue;
}

export type YamlParse = { readonly ok: true; readonly value: YamlValue } | { readonly ok: false };

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Strict YAML for dbt files and --vars: UTF-8, one document, no duplicate
 * keys, no unknown tags, no warnings, bounded aliases, string keys only.
 * YAML 1.2 core schema (`yes`/`no` stay strings, unlike dbt's PyYAML); the
 * starter editions write `true`/`false`, which both read alike.
 */
export function parseYaml(input: Uint8Array | string): YamlParse {
  let text: string;
  try {
    text = typeof input === 'string' ? input : fatal.decode(input);
  } catch {
    return { ok: false };
  }
  if (text.startsWith('\ufeff')) return { ok: false };
  try {
    const doc = parseDocument(text, {
      uniqueKeys: true,
      prettyErrors: false,
      strict: true,
      version: '1.2',
      schema: 'core',
    });
    if (doc.errors.length > 0 || doc.warnings.length > 0) return { ok: false };
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    const checked = toYamlValue(value, 0);
    return checked === undefined ? { ok: false } : { ok: true, value: checked };
  } catch {
    return { ok: false };
  }
}

function toYamlValue(value: unknown, depth: number): YamlValue | undefined {
  if (depth > 64) return undefined;
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items: YamlValue[] = [];
    for (const item of value) {
      const converted = toYamlValue(item, depth + 1);
      if (converted === undefined) return undefined;
      items.push(converted);
    }
    return items;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: { [key: string]: YamlValue } = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const converted = toYamlValue(item, depth + 1);
      if (converted === undefined) return undefined;
      Object.defineProperty(out, key, { value: converted, enumerable: true, writable: false });
    }
    return out;
  }
  // Maps with non-string keys, dates, binary, sets: nothing dbt files need.
  return undefined;
}

export function isMapping(value: YamlValue | undefined): value is YamlMapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: YamlValue | undefined): readonly YamlValue[] {
  return Array.isArray(value) ? (value as readonly YamlValue[]) : [];
}

export function asString(value: YamlValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
