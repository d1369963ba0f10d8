import { createHash } from 'node:crypto';
import type { YamlNode } from '../../core/input/index.js';
import { isMapping, type YamlValue } from './yaml.js';

/**
 * A generic test's arguments as dbt's Python sees them once PyYAML read
 * them, as far as the name of the test depends on it: `str()` writes
 * `True`, `None`, `1.0` and `['a', 'b']` (docs/editions.md, "Test names").
 */
export type PyValue =
  | { readonly kind: 'none' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'str'; readonly value: string }
  /** Decimal digits with an optional `-`: exact, however long. */
  | { readonly kind: 'int'; readonly digits: string }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'list'; readonly items: readonly PyValue[] }
  | { readonly kind: 'dict'; readonly entries: readonly (readonly [string, PyValue])[] };

const NONE: PyValue = { kind: 'none' };
export const pyStr = (value: string): PyValue => ({ kind: 'str', value });

/** What PyYAML reads as an int or a float; anything else a YAML 1.2 reader takes for a number, PyYAML keeps as text. */
const PY_DECIMAL = /^[-+]?(?:0|[1-9][0-9_]*)$/;
const PY_OCTAL = /^[-+]?0[0-7_]+$/;
const PY_HEX = /^[-+]?0x[0-9a-fA-F_]+$/;
const PY_FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)(?:[eE][-+][0-9]+)?$/;

function pyInt(text: string, radix: 'hex' | 'octal' | 'decimal'): PyValue {
  const negative = text.startsWith('-');
  const body = text.replace(/^[-+]/, '').replaceAll('_', '');
  const magnitude =
    radix === 'hex' ? BigInt(body) : radix === 'octal' ? BigInt(`0o${body.slice(1)}`) : BigInt(body);
  return { kind: 'int', digits: `${negative && magnitude !== 0n ? '-' : ''}${magnitude.toString()}` };
}

function pyNumber(source: string, value: number): PyValue {
  const text = source.trim();
  if (PY_DECIMAL.test(text)) return pyInt(text, 'decimal');
  if (PY_HEX.test(text)) return pyInt(text, 'hex');
  if (PY_OCTAL.test(text)) return pyInt(text, 'octal');
  if (PY_FLOAT.test(text)) return { kind: 'float', value };
  return pyStr(text);
}

/** A YAML node as dbt's Python holds it; numbers keep how they are written (`1.0` is a float). */
export function pyFromNode(node: YamlNode): PyValue {
  switch (node.kind) {
    case 'null':
      return NONE;
    case 'boolean':
      return { kind: 'bool', value: node.value };
    case 'string':
      return pyStr(node.value);
    case 'number':
      return pyNumber(node.source, node.value);
    case 'seq':
      return { kind: 'list', items: node.items.map(pyFromNode) };
    case 'map':
      return {
        kind: 'dict',
        entries: node.entries.map((entry) => [entry.key, pyFromNode(entry.value)] as const),
      };
  }
}

/** The same from a plain value, when no node is at hand: a whole number is an int. */
export function pyFromValue(value: YamlValue): PyValue {
  if (value === null) return NONE;
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'string') return pyStr(value);
  if (typeof value === 'number')
    return Number.isSafeInteger(value) ? { kind: 'int', digits: String(value) } : { kind: 'float', value };
  if (Array.isArray(value)) return { kind: 'list', items: value.map(pyFromValue) };
  if (isMapping(value))
    return {
      kind: 'dict',
      entries: Object.keys(value).map((key) => [key, pyFromValue(value[key] ?? null)] as const),
    };
  return NONE;
}

/** Python's `repr(float)`: the shortest digits that round-trip, fixed from 1e-4 up to 1e16, else `1e+16`. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa = '', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${head}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole.slice(0, exponent + 1)}.${fraction === '' ? '0' : fraction}`;
}

/** Characters Python's `str.isprintable()` rejects (the space aside), which `repr` escapes. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's `repr(str)`: single quotes unless the text holds one and no double quote. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === quote || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char !== ' ' && NOT_PRINTABLE.test(char))
      out +=
        code < 0x100
          ? `\\x${code.toString(16).padStart(2, '0')}`
          : code < 0x10000
            ? `\\u${code.toString(16).padStart(4, '0')}`
            : `\\U${code.toString(16).padStart(8, '0')}`;
    else out += char;
  }
  return `${quote}${out}${quote}`;
}

/** Python's `repr()` of a value inside a list or dict. */
export function pyRepr(value: PyValue): string {
  switch (value.kind) {
    case 'none':
      return 'None';
    case 'bool':
      return value.value ? 'True' : 'False';
    case 'str':
      return pyStrRepr(value.value);
    case 'int':
      return value.digits;
    case 'float':
      return pyFloatRepr(value.value);
    case 'list':
      return `[${value.items.map(pyRepr).join(', ')}]`;
    case 'dict':
      return `{${value.entries.map(([key, item]) => `${pyStrRepr(key)}: ${pyRepr(item)}`).join(', ')}}`;
  }
}

/** Python's `str()`: text as it is, anything else as `repr()`. */
export const pyStrOf = (value: PyValue): string => (value.kind === 'str' ? value.value : pyRepr(value));

/** Python's `sorted()` of text: by code point. */
function byCodePoint(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const diff = (left[index]?.codePointAt(0) ?? 0) - (right[index]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/**
 * The argument values a test's name is made of, in dbt's order: arguments
 * sorted by name (`model` left out: the name holds it already); a dict
 * gives its values, a list its items, anything else itself, each as
 * Python's `str()` writes it.
 */
export function testNameParts(args: readonly (readonly [string, PyValue])[]): string[] {
  const sorted = [...args].sort(([a], [b]) => byCodePoint(a, b));
  return sorted.flatMap(([key, value]) => {
    if (key === 'model') return [];
    const parts =
      value.kind === 'dict'
        ? value.entries.map(([, item]) => item)
        : value.kind === 'list'
          ? value.items
          : [value];
    return parts.map(pyStrOf);
  });
}

/**
 * Keys beside a test's arguments that are neither arguments nor configs:
 * its own `name:`, and the `description:` dbt reads on a test since 1.9
 * (documentation only: the check keeps it out of the run).
 */
export const PLAIN_TEST_KEYS: ReadonlySet<string> = new Set(['name', 'description']);

/**
 * The configs dbt reads on a generic test, in `config:` or (the older form)
 * beside its arguments: each changes what the test reports or when, and the
 * check applies none of them.
 */
export const TEST_CONFIGS: readonly string[] = [
  'config',
  'severity',
  'where',
  'limit',
  'warn_if',
  'error_if',
  'fail_calc',
  'store_failures',
  'store_failures_as',
  'enabled',
  'tags',
  'meta',
  'alias',
  'schema',
  'database',
];

/**
 * What dbt reads beside a test's arguments rather than as one: its configs
 * (the older form, beside the arguments), `config:`, `description:`, and
 * `name:` (a test with a name of its own is not named from its arguments).
 */
const NOT_ARGUMENTS = new Set([...TEST_CONFIGS, ...PLAIN_TEST_KEYS]);

/**
 * The argument values of one entry of `data_tests:` as dbt names the test
 * from them: the entry's arguments (beside `test_name:` or under the test's
 * one key), the column it is declared on as `column_name`, those under
 * `arguments:` over those beside it, less the configs, `description:` and
 * `name:`.
 */
export function testArgumentParts(entry: PyValue, column: string | undefined): string[] {
  return testNameParts([...testArguments(entry, column)]);
}

/** The arguments dbt passes a test (`model` aside): see testArgumentParts. */
function testArguments(entry: PyValue, column: string | undefined): Map<string, PyValue> {
  const args = new Map<string, PyValue>();
  if (entry.kind === 'dict') {
    const named = entry.entries.some(([key]) => key === 'test_name');
    const body = named
      ? entry.entries.filter(([key]) => key !== 'test_name')
      : entry.entries.length === 1 && entry.entries[0]?.[1].kind === 'dict'
        ? entry.entries[0][1].entries
        : [];
    for (const [key, value] of body) args.set(key, value);
  }
  if (column !== undefined) args.set('column_name', pyStr(column));
  const nested = args.get('arguments');
  args.delete('arguments');
  if (nested?.kind === 'dict') for (const [key, value] of nested.entries) args.set(key, value);
  for (const key of NOT_ARGUMENTS) args.delete(key);
  return args;
}

/** A value as dbt hashes it into a test's id: `str()` of each leaf, a dict's keys sorted. */
function hashable(value: PyValue): unknown {
  if (value.kind === 'list') return ['list', value.items.map(hashable)];
  if (value.kind === 'dict')
    return [
      'dict',
      [...value.entries].sort(([a], [b]) => byCodePoint(a, b)).map(([key, item]) => [key, hashable(item)]),
    ];
  return pyStrOf(value);
}

/** `enabled: false` in the test's `config:` or beside its arguments. */
function disabled(entry: PyValue): boolean {
  if (entry.kind !== 'dict') return false;
  const body = entry.entries.some(([key]) => key === 'test_name')
    ? entry.entries
    : entry.entries.length === 1 && entry.entries[0]?.[1].kind === 'dict'
      ? entry.entries[0][1].entries
      : [];
  const isFalse = (value: PyValue | undefined) => value?.kind === 'bool' && !value.value;
  const config = body.find(([key]) => key === 'config')?.[1];
  return (
    isFalse(body.find(([key]) => key === 'enabled')?.[1]) ||
    (config?.kind === 'dict' && isFalse(config.entries.find(([key]) => key === 'enabled')?.[1]))
  );
}

/**
 * What dbt tells two generic tests of one name apart by: the test and its
 * arguments (the column among them, `str()` of each value, configs left
 * out), to which the caller adds the model or source table. dbt hashes
 * these with the name into the test's id and refuses a project where two
 * tests get one id (docs/editions.md, "Test names"). Undefined for a test
 * set `enabled: false`, which dbt sets aside without comparing it.
 */
export function testIdentity(entry: PyValue, column: string | undefined): string | undefined {
  if (disabled(entry)) return undefined;
  const label =
    entry.kind === 'dict'
      ? (entry.entries.find(([key]) => key === 'test_name')?.[1] ?? pyStr(entry.entries[0]?.[0] ?? ''))
      : entry;
  const args = [...testArguments(entry, column)]
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([key, value]) => [key, hashable(value)]);
  return JSON.stringify([pyStrOf(label), args]);
}

/** dbt keeps a test's file and relation name under this many characters… */
const NAME_LIMIT = 64;
/** …by keeping this much of the test and target, then the MD5 of the full name. */
const KEPT_PREFIX = 30;

export interface TestNames {
  /** The name dbt gives the test: what `dbt test` prints and `--select` takes. */
  readonly full: string;
  /** Its alias, for the compiled file and a failures table: the full name, or when that has 64 characters or more, its first 30 of test and target and the MD5 of the full name. */
  readonly short: string;
}

/**
 * dbt's name for a generic test without a `name:` of its own: the test
 * (`not_null`, `source_not_null`, `dbt_utils_accepted_range`), the model or
 * `<source>_<table>`, then each argument value with every run of
 * characters other than letters, digits and `_` made one `_`, joined by `__`
 * (docs/editions.md, "Test names").
 */
export function synthesizeTestNames(testType: string, target: string, parts: readonly string[]): TestNames {
  const unique = parts.map((part) => part.replace(/[^0-9a-zA-Z_]+/g, '_')).join('__');
  const identifier = `${testType}_${target}`;
  const full = `${identifier}_${unique}`;
  // Python counts and slices code points.
  if ([...full].length < NAME_LIMIT) return { full, short: full };
  const label = createHash('md5').update(full, 'utf8').digest('hex');
  return { full, short: `${[...identifier].slice(0, KEPT_PREFIX).join('')}_${label}` };
}
