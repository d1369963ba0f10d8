import type { z } from 'zod';
import { nodeAt, type PathSegment, type YamlNode } from '../../core/input/index.js';
import { type Refusal, refuseAll, type ValuePosition } from '../../core/refusal/index.js';

/**
 * Where things are in a resource file: a key path resolved against the YAML
 * node tree kept beside the plain value, so a schema issue (a zod path) or a
 * graph check (a pointer such as `uses[0].semantic_model`) is reported at the
 * line and column the operator wrote it. See docs/contracts.md#reading-an-error.
 */

const SEGMENT = /^(?:\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** `uses[0].semantic_model` → `['uses', 0, 'semantic_model']` (the inverse of core `pointerOf`). */
export function segmentsOf(pointer: string): PathSegment[] | undefined {
  const out: PathSegment[] = [];
  let rest = pointer;
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    if (match === null) return undefined;
    if (match[1] !== undefined) out.push(match[1]);
    else if (match[2] !== undefined) out.push(Number(match[2]));
    else out.push(JSON.parse(match[3] as string) as string);
    rest = rest.slice(match[0].length);
  }
  return out;
}

/**
 * Gives a refusal raised with only a pointer the line and column of that
 * pointer's node. One raised with only an allowlisted field path is placed
 * at that field when the path names one place (`sql`, `defaults.x`), or at
 * the list holding it (`dimensions` for `dimensions[].field`), keeping the
 * field path; one with neither is placed at the file's start. The file path
 * is the caller's (see `placeEach`).
 */
export function positioned(refusal: Refusal, root: YamlNode | null): Refusal {
  if (refusal.location?.line !== undefined || root === null) return refusal;
  const pointer = refusal.location?.pointer;
  if (pointer !== undefined) {
    const node = nodeAt(root, segmentsOf(pointer) ?? []) ?? root;
    const inside = insideValue(node, refusal);
    return refusal.at({ line: inside?.line ?? node.at.line, column: inside?.column ?? node.at.column });
  }
  const field = refusal.field;
  if (field === undefined) return refusal.at({ line: root.at.line, column: root.at.column });
  const [prefix = '', ...rest] = field.split('[]');
  const segments = prefix === '' ? [] : prefix.split('.');
  const found = nodeAt(root, segments) ?? root;
  const exact = rest.length === 0 && nodeAt(root, segments, true) !== undefined;
  const inside = exact ? insideValue(found, refusal) : undefined;
  return refusal.at({
    line: inside?.line ?? found.at.line,
    column: inside?.column ?? found.at.column,
    ...(exact ? { pointer: field } : {}),
  });
}

/**
 * A place inside a string value (a fault in a model's SQL) as the file's line
 * and column, when the value is written as it is (a literal block, a plain
 * scalar on one line); otherwise the value's own place stands.
 */
function insideValue(node: YamlNode, refusal: Refusal): { line: number; column: number } | undefined {
  return refusal.within === undefined ? undefined : positionInside(node, refusal.within);
}

/** The file's line and column of `within` in a string value written as it is, else undefined. */
export function positionInside(
  node: YamlNode,
  within: ValuePosition,
): { line: number; column: number } | undefined {
  if (node.kind !== 'string' || node.written === undefined) return undefined;
  const lines = node.value.split('\n');
  const line = lines[within.line - 1];
  if (line === undefined || within.column > [...line].length + 1) return undefined;
  return { line: node.written.line + within.line - 1, column: node.written.column + within.column - 1 };
}

/** Where the character at `index` (a UTF-16 index) of `text` is: its line and column (in characters) in the text. */
export function withinOf(text: string, index: number): ValuePosition {
  const before = text.slice(0, index).split('\n');
  return { line: before.length, column: [...(before.at(-1) ?? '')].length + 1 };
}

/** Applies `place` to a refusal and to each of its further errors. */
export function placeEach(refusal: Refusal, place: (one: Refusal) => Refusal): Refusal {
  const all = [refusal.withOthers([], 0), ...refusal.also].map(place);
  const combined = refuseAll(all);
  return refusal.omitted === 0
    ? combined
    : combined.withOthers(combined.also, combined.omitted + refusal.omitted);
}

// ---- the keys a schema allows at a path, for "did you mean" ----

export interface ZodDefLike {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: ZodCheckDefLike } }[];
  readonly discriminator?: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly values?: readonly unknown[];
  readonly entries?: Readonly<Record<string, unknown>>;
  readonly getter?: () => z.ZodType;
}

/** What a check of a zod schema records: a length or size bound, a format, a pattern. */
export interface ZodCheckDefLike {
  readonly check: string;
  readonly format?: string;
  readonly pattern?: RegExp;
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly value?: number | bigint;
  readonly inclusive?: boolean;
}

/** Zod's base definition declares `type` only; the optional members are those of the kinds that have them. */
export function defOf(schema: z.ZodType): ZodDefLike {
  return schema._zod.def;
}

export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let guard = 0; guard < 16; guard += 1) {
    const def = defOf(current);
    const inner =
      def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'readonly'
        ? def.innerType
        : def.type === 'pipe'
          ? def.in
          : def.type === 'lazy'
            ? def.getter?.()
            : undefined;
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

/**
 * The object option of a union that the value is meant to be: the one whose
 * literal and enum keys it matches (a condition's `op: in` is an enum member
 * of the `values` option, not of the first one).
 */
function pickOption(options: readonly z.ZodType[], value: unknown): z.ZodType | undefined {
  const objects = options.map(unwrap).filter((option) => defOf(option).type === 'object');
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  return objects.find((option) =>
    Object.entries(defOf(option).shape ?? {}).every(([key, child]) => {
      const def = defOf(unwrap(child));
      if (def.type === 'literal') return (def.values ?? []).includes(record[key]);
      if (def.type === 'enum' && record[key] !== undefined)
        return Object.values(def.entries ?? {}).includes(record[key]);
      return true;
    }),
  );
}

/**
 * The schema of the value at `path` (wrappers such as optional and default
 * removed), following a union through the option the value is meant to be;
 * undefined when the path leaves the schema.
 */
export function schemaAt(
  schema: z.ZodType,
  value: unknown,
  path: readonly PropertyKey[],
): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  let here: unknown = value;
  for (const segment of path) {
    if (current === undefined) return undefined;
    current = unwrap(current);
    let def = defOf(current);
    if (def.type === 'union') {
      current = pickOption(def.options ?? [], here);
      if (current === undefined) return undefined;
      def = defOf(current);
    }
    if (def.type === 'object' && typeof segment === 'string') current = def.shape?.[segment];
    else if (def.type === 'array' && typeof segment === 'number') current = def.element;
    else return undefined;
    here =
      typeof here === 'object' && here !== null ? (here as Record<PropertyKey, unknown>)[segment] : undefined;
  }
  return current === undefined ? undefined : unwrap(current);
}

/** The keys the object schema at `path` defines, or undefined when the path is not an object. */
export function allowedKeysAt(
  schema: z.ZodType,
  value: unknown,
  path: readonly PropertyKey[],
): readonly string[] | undefined {
  const found = schemaAt(schema, value, path);
  if (found === undefined) return undefined;
  let def = defOf(found);
  if (def.type === 'union') {
    const option = pickOption(def.options ?? [], nodeValueAt(value, path));
    if (option === undefined) return undefined;
    def = defOf(option);
  }
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : undefined;
}

/**
 * Every key some option of the union at `path` defines (a mapping that is
 * none of the options yet, e.g. one without its discriminator), or
 * undefined when the schema there is not a union of mappings.
 */
export function unionKeysAt(
  schema: z.ZodType,
  value: unknown,
  path: readonly PropertyKey[],
): readonly string[] | undefined {
  const found = schemaAt(schema, value, path);
  if (found === undefined) return undefined;
  const def = defOf(found);
  if (def.type !== 'union') return undefined;
  const keys = new Set<string>();
  for (const option of def.options ?? []) {
    const optionDef = defOf(unwrap(option));
    if (optionDef.type !== 'object') return undefined;
    for (const key of Object.keys(optionDef.shape ?? {})) keys.add(key);
  }
  return [...keys];
}

function nodeValueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let here = value;
  for (const segment of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[segment];
  }
  return here;
}

// ---- a change of the projection, found in the file that authored it ----

const CHANGE_SEGMENT = /^(?:\.?([A-Za-z_][A-Za-z0-9_-]*)|\[((?:[^\\\]]|\\.)*)\])/;

/**
 * The authored place of a change's path (`content.fields[amount].type`)
 * as a pointer into the resource file (`fields[4].type`), followed key by
 * key and, in a list, to the member whose `name` is the bracketed one, as
 * far as the file has it: the projection keeps the authored keys for
 * fields and members, and where it does not, the deepest place found
 * stands (the member, at least). Undefined when not even the first key is
 * in the file, or when a list has no member of the bracketed name (checks
 * are bracketed by a label, not a name). See docs/contracts.md#reading-an-error.
 */
export function authoredPointerOf(root: YamlNode | null, changePath: string): string | undefined {
  if (root === null) return undefined;
  let rest = changePath.startsWith('content.') ? changePath.slice('content.'.length) : changePath;
  let node = root;
  let pointer = '';
  while (rest !== '') {
    const match = CHANGE_SEGMENT.exec(rest);
    if (match === null) break;
    rest = rest.slice(match[0].length);
    const key = match[1];
    if (key !== undefined && node.kind === 'map') {
      const entry = node.entries.find((candidate) => candidate.key === key);
      if (entry === undefined) break;
      pointer += `${pointer === '' ? '' : '.'}${key}`;
      node = entry.value;
      continue;
    }
    const name = match[2]?.replace(/\\(.)/g, '$1');
    if (name === undefined || node.kind !== 'seq') break;
    const index = node.items.findIndex(
      (item) =>
        item.kind === 'map' &&
        item.entries.some(
          (entry) => entry.key === 'name' && entry.value.kind === 'string' && entry.value.value === name,
        ),
    );
    const item = node.items[index];
    // A member found by something other than its name (a check by its kind and column): the list's
    // first line would name another member, so no place is given rather than a wrong one.
    if (item === undefined) return undefined;
    pointer += `[${index}]`;
    node = item;
  }
  return pointer === '' ? undefined : pointer;
}
