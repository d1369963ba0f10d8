import {
  describeKind,
  type ExpectedKind,
  expectedText,
  locateIssues,
  nodeAt,
  type PathSegment,
  pointerOf,
  type RecordIssue,
  type YamlNode,
} from '../../core/input/index.js';
import { didYouMean, nearest } from '../../core/refusal/index.js';
import type { SchemaViolation } from './schemas.js';

/**
 * dbt's JSON schemas (checked by ajv) report what is wrong as violations of
 * rules; a user needs places. This turns every violation of one document
 * into located problems through the core closed-record kit, as the
 * distributor's configuration and contract files are read: an unknown key at
 * the key with the nearest allowed key, a missing key at its mapping with
 * what to add, a value of the wrong kind at the value with what was
 * expected. The branches of an `anyOf`/`oneOf` fail together; they are
 * summed up at the value they concern, and a rule on a mapping whose own
 * keys or values are already reported is not reported again.
 */
export interface SchemaProblem {
  readonly kind: 'unknown_key' | 'missing_key' | 'wrong_type' | 'rule';
  readonly path: readonly PathSegment[];
  readonly pointer?: string;
  readonly line?: number;
  readonly column?: number;
  readonly hint: string;
}

const KINDS: { readonly [type: string]: ExpectedKind } = {
  string: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  array: 'list',
  object: 'mapping',
  null: 'null',
};

/** JSON Schema keywords that concern a string value only. */
const STRING_RULES = new Set(['pattern', 'format', 'minLength', 'maxLength']);
const MAX_LISTED_VALUES = 12;

/**
 * Every problem of one document, in file order. `own` are further issues the
 * caller found itself (dbt_project.yml's name); they are placed and worded
 * the same way, and a schema issue at the same place is not repeated.
 */
export function schemaProblems(
  violations: readonly SchemaViolation[],
  root: YamlNode | undefined,
  own: readonly RecordIssue[] = [],
): readonly SchemaProblem[] {
  const node = root ?? null;
  const records: RecordIssue[] = [...own];
  const values = new Map<string, { path: PathSegment[]; violations: SchemaViolation[] }>();
  for (const violation of violations) {
    const path = segmentsOf(root, violation.instancePath);
    if (violation.key !== undefined) {
      records.push({ kind: 'unknown_key', path, key: violation.key, allowed: violation.allowed ?? [] });
    } else if (violation.missing !== undefined) {
      records.push({ kind: 'missing_key', path, key: violation.missing });
    } else {
      const id = pointerOf(path);
      const group = values.get(id) ?? { path, violations: [] };
      group.violations.push(violation);
      values.set(id, group);
    }
  }
  const seen = new Set<string>();
  const unique = records.filter((issue) => {
    const id = `${issue.kind}\u0000${pointerOf(issue.path)}\u0000${issue.kind === 'wrong_type' ? '' : issue.key}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const keyed = unique.map((issue) =>
    issue.kind === 'wrong_type' ? issue.path : [...issue.path, issue.key],
  );
  // A rule that fails on a value whose own parts are reported (or that is
  // the subject of an issue already) adds nothing.
  const below = (path: readonly PathSegment[]) =>
    [...keyed, ...[...values.values()].map((group) => group.path)].some(
      (other) => other.length > path.length && path.every((segment, index) => other[index] === segment),
    );
  const covered = new Set(keyed.map((path) => pointerOf(path)));
  const rules: SchemaProblem[] = [];
  const readAsFolder = new Set<string>();
  for (const group of values.values()) {
    if (below(group.path) || covered.has(pointerOf(group.path))) continue;
    const found = nodeAt(node, group.path, true);
    const wrongKind = wrongKindOf(group.violations, found);
    const config = wrongKind === undefined ? undefined : unknownConfig(node, group.path, group.violations);
    if (config?.misspelt !== undefined) {
      const misspelt = config.misspelt;
      // Every value under one misspelt config names it: report it once.
      const id = `${pointerOf(misspelt.path)}\u0000${misspelt.kind === 'wrong_type' ? '' : misspelt.key}`;
      if (!seen.has(`unknown_key\u0000${id}`)) {
        seen.add(`unknown_key\u0000${id}`);
        unique.push(misspelt);
      }
      continue;
    }
    if (config !== undefined) readAsFolder.add(pointerOf(group.path));
    if (wrongKind !== undefined) {
      unique.push({ kind: 'wrong_type', path: group.path, expected: wrongKind });
      continue;
    }
    const at = found ?? nodeAt(node, group.path);
    const pointer = pointerOf(group.path);
    rules.push({
      kind: 'rule',
      path: group.path,
      ...(pointer === '' ? {} : { pointer }),
      ...(at === undefined ? {} : { line: at.at.line, column: at.at.column }),
      hint: ruleHint(group.violations, found),
    });
  }
  const placed: SchemaProblem[] = locateIssues(node, unique).map((problem) => ({
    kind: problem.kind,
    path: problem.path,
    ...(problem.pointer === '' ? {} : { pointer: problem.pointer }),
    ...(node === null ? {} : { line: problem.at.line, column: problem.at.column }),
    hint:
      problem.kind === 'unknown_key'
        ? unknownKeyHint(problem.key ?? '', problem.hint)
        : readAsFolder.has(problem.pointer)
          ? `${problem.hint ?? ''}: dbt knows no config '${String(problem.path.at(-1))}' here, so its schema reads the key as a folder name`
          : (problem.hint ?? ''),
  }));
  return [...placed, ...rules].sort(
    (a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
  );
}

/**
 * A key that starts with `+` is a config in dbt_project.yml (`+materialized:
 * table`). dbt's schema takes any key it does not name for a folder, which
 * holds a mapping, so `+materialzed: table` fails as "a string where a
 * mapping goes": true, but it hides the misspelling. Such a key is a config
 * the schema does not know when the schema names configs for the folder
 * that holds it; `misspelt` is the unknown key to report instead when one
 * of those configs is near it and that folder does not set it already.
 */
function unknownConfig(
  root: YamlNode | null,
  path: readonly PathSegment[],
  violations: readonly SchemaViolation[],
): { readonly misspelt?: RecordIssue } | undefined {
  // The value of a misspelt config that holds a mapping (`+column_typs: {id: integer}`) is
  // read as folders too: its own keys fail, and the `+` key above them is the misspelling.
  let index = path.length - 1;
  while (index >= 0 && !(typeof path[index] === 'string' && String(path[index]).startsWith('+'))) index -= 1;
  const key = path[index];
  if (typeof key !== 'string') return undefined;
  const inside = index < path.length - 1;
  const known = [...new Set(violations.flatMap((violation) => violation.mappingKeys ?? []))].filter((name) =>
    name.startsWith('+'),
  );
  if (known.length === 0) return undefined;
  const parent = path.slice(0, index);
  const holder = nodeAt(root, parent);
  const present = new Set(holder?.kind === 'map' ? holder.entries.map((entry) => entry.key) : []);
  const configs = known.filter((name) => !present.has(name));
  if (nearest(key, configs) === undefined) return inside ? undefined : {};
  return { misspelt: { kind: 'unknown_key', path: parent, key, allowed: configs } };
}

/** `dbt does not know the key 'descripton' here; did you mean 'description'?` */
function unknownKeyHint(key: string, advice: string | undefined): string {
  if (advice === undefined) return `dbt does not know the key '${key}' here`;
  // A list of allowed keys says "here" itself.
  return advice.startsWith('allowed keys')
    ? `dbt does not know the key '${key}'; ${advice}`
    : `dbt does not know the key '${key}' here; ${advice}`;
}

/**
 * The kinds a value should have had, when that is its only fault: every
 * rule that failed on it is a `type` rule, or one that does not apply to a
 * value of its kind (a pattern on a number, an enum of strings for a list).
 */
function wrongKindOf(
  violations: readonly SchemaViolation[],
  found: YamlNode | undefined,
): readonly ExpectedKind[] | undefined {
  const expected = violations.flatMap((violation) =>
    violation.keyword === 'type' ? (violation.types ?? []).flatMap((type) => KINDS[type] ?? []) : [],
  );
  if (expected.length === 0 || found === undefined) return undefined;
  const relevant = violations.filter((violation) => appliesTo(violation, found));
  return relevant.length === 0 ? expected : undefined;
}

/** Whether a failed rule other than `type` says something about this value. */
function appliesTo(violation: SchemaViolation, found: YamlNode): boolean {
  if (violation.keyword === 'type') return false;
  if (violation.keyword === 'anyOf' || violation.keyword === 'oneOf') return false;
  if (STRING_RULES.has(violation.keyword)) return found.kind === 'string';
  if (violation.keyword === 'enum' || violation.keyword === 'const') {
    const kind = found.kind;
    return (violation.values ?? []).some((value) => kindOfPlain(value) === kind);
  }
  return true;
}

function kindOfPlain(value: unknown): YamlNode['kind'] {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'seq';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  return 'string';
}

/** Advice for a value that breaks a rule other than its kind: the allowed values, or the rule. */
function ruleHint(violations: readonly SchemaViolation[], found: YamlNode | undefined): string {
  const relevant = found === undefined ? [] : violations.filter((violation) => appliesTo(violation, found));
  const enumValues = relevant
    .filter((violation) => violation.keyword === 'enum' || violation.keyword === 'const')
    .flatMap((violation) => violation.values ?? [])
    .filter((value): value is string => typeof value === 'string');
  if (enumValues.length > 0) {
    const given = found?.kind === 'string' ? found.value : undefined;
    const near = given === undefined ? undefined : didYouMean(given, enumValues);
    if (near !== undefined) return near;
    const allowed = [...new Set(enumValues)];
    if (allowed.length <= MAX_LISTED_VALUES) return `expected one of ${allowed.join(', ')}`;
  }
  const rule = relevant[0] ?? violations.find((violation) => violation.keyword !== 'type') ?? violations[0];
  const keyword = rule?.keyword ?? 'schema';
  const types = violations.flatMap((violation) =>
    violation.keyword === 'type' ? (violation.types ?? []).flatMap((type) => KINDS[type] ?? []) : [],
  );
  // `+enabled: maybe`: true or false, or a string of the one form dbt allows (a Jinja expression).
  if (types.length > 0 && STRING_RULES.has(keyword) && found?.kind === 'string')
    return `expected ${expectedText(types)}, or a string that dbt's '${keyword}' rule accepts`;
  const kind = found === undefined ? '' : ` (found ${describeKind(found)})`;
  return `dbt's schema rule '${keyword}' fails here${kind}`;
}

/** A JSON pointer from ajv, read against the document: list indices become numbers. */
export function segmentsOf(node: YamlNode | undefined, pointer: string): PathSegment[] {
  const out: PathSegment[] = [];
  let current = node;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (current?.kind === 'seq' && /^[0-9]+$/.test(segment)) {
      const index = Number(segment);
      out.push(index);
      current = current.items[index];
    } else {
      out.push(segment);
      current =
        current?.kind === 'map' ? current.entries.find((entry) => entry.key === segment)?.value : undefined;
    }
  }
  return out;
}
