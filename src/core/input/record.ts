import { didYouMean, nearest } from '../refusal/index.js';
import { type PathSegment, pointerOf } from './pointer.js';
import { describeKind, type Position, type YamlEntry, type YamlMapNode, type YamlNode } from './yaml.js';

/**
 * The one closed-record kit (docs/refusals.md#every-error-at-once). A
 * mapping may hold exactly its required keys and any of its optional keys,
 * and each value has a kind. Whatever checks a document — this reader, or a
 * schema validator (zod for contracts, ajv with dbt's schemas for editions)
 * whose issues are handed to `locateIssues` — every problem comes out the
 * same way: its key path, its line and column, and one line of advice
 * (`did you mean 'html'?`, `add 'kind'`, `expected a list, found a string`),
 * so a caller can refuse them all at once in its own codes.
 */
export interface RecordShape {
  readonly required: readonly string[];
  readonly optional?: readonly string[];
}

/** A value kind as a schema names it; `integer` is a number without a fraction. */
export type ExpectedKind = 'null' | 'boolean' | 'number' | 'integer' | 'string' | 'list' | 'mapping';

/** What a schema found wrong, before it is placed in the document. */
export type RecordIssue =
  | {
      readonly kind: 'unknown_key';
      /** The path of the mapping that holds the key. */
      readonly path: readonly PathSegment[];
      readonly key: string;
      /** The keys that mapping allows, for the "did you mean". */
      readonly allowed: readonly string[];
    }
  | {
      readonly kind: 'missing_key';
      /** The path of the mapping that lacks the key. */
      readonly path: readonly PathSegment[];
      readonly key: string;
    }
  | {
      readonly kind: 'wrong_type';
      /** The path of the value. */
      readonly path: readonly PathSegment[];
      /** Every kind the schema would accept there. */
      readonly expected: readonly ExpectedKind[];
    };

/** A problem placed in the document: key path, position and advice. */
export type RecordProblem = {
  readonly kind: RecordIssue['kind'];
  /** The key path of the problem: an unknown or missing key ends with that key. */
  readonly path: readonly PathSegment[];
  readonly pointer: string;
  /** The key for an unknown or missing key. */
  readonly key?: string;
  /** Where to look: the unknown key, the mapping that lacks a key, the mistyped value. */
  readonly at: Position;
  /** `did you mean 'x'?`, `allowed keys here: …`, `add 'x'`, `expected a list, found a string`. */
  readonly hint?: string;
};

export interface ClosedRecord {
  readonly fields: ReadonlyMap<string, YamlEntry>;
  readonly problems: readonly RecordProblem[];
}

/** Beyond this many allowed keys, an unknown key without a near match gets no list. */
const MAX_LISTED_KEYS = 12;

export function readClosedRecord(
  map: YamlMapNode,
  shape: RecordShape,
  path: readonly PathSegment[],
): ClosedRecord {
  const allowed = [...shape.required, ...(shape.optional ?? [])];
  const allowedSet = new Set(allowed);
  const fields = new Map<string, YamlEntry>();
  const issues: RecordIssue[] = [];
  for (const entry of map.entries) {
    if (allowedSet.has(entry.key)) fields.set(entry.key, entry);
    else issues.push({ kind: 'unknown_key', path, key: entry.key, allowed });
  }
  for (const key of shape.required) {
    if (!fields.has(key)) issues.push({ kind: 'missing_key', path, key });
  }
  return { fields, problems: locateIssues(map, issues, path) };
}

/**
 * Places schema issues in the document whose root is `root` (found at
 * `rootPath`, for a mapping read on its own) and words their advice. Issues
 * keep their order. A missing key that an unknown key of the same mapping
 * was probably meant to be (`htm` for `html`) is one typo, not two errors:
 * only the unknown key is reported. Without a node tree (a value validated
 * on its own) problems have a key path but no position.
 */
export function locateIssues(
  root: YamlNode | null,
  issues: readonly RecordIssue[],
  rootPath: readonly PathSegment[] = [],
): RecordProblem[] {
  const relative = (path: readonly PathSegment[]) => path.slice(rootPath.length);
  const missingByMap = new Map<string, Set<string>>();
  for (const issue of issues) {
    if (issue.kind !== 'missing_key') continue;
    const id = pointerOf(issue.path);
    missingByMap.set(id, (missingByMap.get(id) ?? new Set()).add(issue.key));
  }
  const meant = new Set<string>();
  const out: RecordProblem[] = [];
  const start: Position = root?.at ?? { line: 1, column: 1 };
  for (const issue of issues) {
    if (issue.kind === 'unknown_key') {
      const present = new Set(entriesAt(root, relative(issue.path)).map((entry) => entry.key));
      const free = issue.allowed.filter((key) => !present.has(key));
      const near = nearest(issue.key, free);
      const missing = missingByMap.get(pointerOf(issue.path));
      const mended = missing === undefined ? undefined : nearest(issue.key, [...missing]);
      if (mended !== undefined) meant.add(`${pointerOf(issue.path)}\u0000${mended}`);
      const hint =
        near !== undefined
          ? didYouMean(issue.key, [near])
          : issue.allowed.length > 0 && issue.allowed.length <= MAX_LISTED_KEYS
            ? `allowed keys here: ${issue.allowed.join(', ')}`
            : undefined;
      const at = keyAt(root, relative(issue.path), issue.key) ?? nodeAt(root, relative(issue.path))?.at;
      out.push({
        kind: 'unknown_key',
        path: [...issue.path, issue.key],
        pointer: pointerOf([...issue.path, issue.key]),
        key: issue.key,
        at: at ?? start,
        ...(hint === undefined ? {} : { hint }),
      });
    } else if (issue.kind === 'missing_key') {
      out.push({
        kind: 'missing_key',
        path: [...issue.path, issue.key],
        pointer: pointerOf([...issue.path, issue.key]),
        key: issue.key,
        at: nodeAt(root, relative(issue.path))?.at ?? start,
        hint: `add '${issue.key}'`,
      });
    } else {
      const found = nodeAt(root, relative(issue.path), true);
      const hint =
        found === undefined
          ? `expected ${expectedText(issue.expected)}`
          : `expected ${expectedText(issue.expected)}, found ${describeKind(found)}`;
      out.push({
        kind: 'wrong_type',
        path: issue.path,
        pointer: pointerOf(issue.path),
        at: found?.at ?? nodeAt(root, relative(issue.path))?.at ?? start,
        hint,
      });
    }
  }
  return out.filter(
    (problem) =>
      problem.kind !== 'missing_key' ||
      !meant.has(`${pointerOf(problem.path.slice(0, -1))}\u0000${problem.key ?? ''}`),
  );
}

const KIND_WORDS: { readonly [K in ExpectedKind]: string } = {
  null: 'an empty value',
  boolean: 'true or false',
  number: 'a number',
  integer: 'a whole number',
  string: 'a string',
  list: 'a list',
  mapping: 'a mapping',
};

/** `a string`, `a string or a list`, `a number, a string or a list`. */
export function expectedText(expected: readonly ExpectedKind[]): string {
  const kinds = [...new Set(expected)];
  // `a number` already admits a whole number.
  const shown = kinds.includes('number') ? kinds.filter((kind) => kind !== 'integer') : kinds;
  const words = shown.map((kind) => KIND_WORDS[kind]);
  if (words.length <= 1) return words[0] ?? 'another kind of value';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/**
 * The node at `path`, or (unless `exact`) the deepest node on the way that
 * exists; undefined without a tree.
 */
export function nodeAt(
  root: YamlNode | null,
  path: readonly PathSegment[],
  exact = false,
): YamlNode | undefined {
  if (root === null) return undefined;
  let node = root;
  for (const segment of path) {
    let next: YamlNode | undefined;
    if (node.kind === 'map' && typeof segment === 'string')
      next = node.entries.find((entry) => entry.key === segment)?.value;
    else if (node.kind === 'seq' && typeof segment === 'number') next = node.items[segment];
    if (next === undefined) return exact ? undefined : node;
    node = next;
  }
  return node;
}

/** Where the key `key` of the mapping at `path` is written, if it is. */
export function keyAt(
  root: YamlNode | null,
  path: readonly PathSegment[],
  key: string,
): Position | undefined {
  return entriesAt(root, path).find((entry) => entry.key === key)?.keyAt;
}

function entriesAt(root: YamlNode | null, path: readonly PathSegment[]): readonly YamlEntry[] {
  const node = nodeAt(root, path, true);
  return node?.kind === 'map' ? node.entries : [];
}

/** The location parts of a node at a key path, for a refusal's `location`. */
export function placeOf(
  node: YamlNode | { readonly at: Position },
  path: readonly PathSegment[],
): { readonly line: number; readonly column: number; readonly pointer?: string } {
  const pointer = pointerOf(path);
  return { line: node.at.line, column: node.at.column, ...(pointer === '' ? {} : { pointer }) };
}
