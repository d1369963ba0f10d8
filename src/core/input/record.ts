import { didYouMean } from '../refusal/index.js';
import { type PathSegment, pointerOf } from './pointer.js';
import type { Position, YamlEntry, YamlMapNode, YamlNode } from './yaml.js';

/**
 * The one closed-record reader: a mapping may hold exactly its required keys
 * and any of its optional keys. It reports every problem it finds, each with
 * its key path and position, and an unknown key with the nearest allowed key,
 * so a caller can refuse them all at once (docs/refusals.md#every-error-at-once).
 */
export interface RecordShape {
  readonly required: readonly string[];
  readonly optional?: readonly string[];
}

export type RecordProblem =
  | {
      readonly kind: 'unknown_key';
      readonly key: string;
      readonly pointer: string;
      readonly at: Position;
      /** `did you mean 'x'?` when an allowed key is near. */
      readonly hint?: string;
    }
  | { readonly kind: 'missing_key'; readonly key: string; readonly pointer: string; readonly at: Position };

export interface ClosedRecord {
  readonly fields: ReadonlyMap<string, YamlEntry>;
  readonly problems: readonly RecordProblem[];
}

export function readClosedRecord(
  map: YamlMapNode,
  shape: RecordShape,
  path: readonly PathSegment[],
): ClosedRecord {
  const allowed = [...shape.required, ...(shape.optional ?? [])];
  const allowedSet = new Set(allowed);
  const fields = new Map<string, YamlEntry>();
  const problems: RecordProblem[] = [];
  for (const entry of map.entries) {
    if (allowedSet.has(entry.key)) {
      fields.set(entry.key, entry);
      continue;
    }
    const hint = didYouMean(
      entry.key,
      allowed.filter((key) => !map.entries.some((other) => other.key === key)),
    );
    problems.push({
      kind: 'unknown_key',
      key: entry.key,
      pointer: pointerOf([...path, entry.key]),
      at: entry.keyAt,
      ...(hint !== undefined ? { hint } : {}),
    });
  }
  for (const key of shape.required) {
    if (!fields.has(key))
      problems.push({ kind: 'missing_key', key, pointer: pointerOf([...path, key]), at: map.at });
  }
  return { fields, problems };
}

/** The location parts of a node at a key path, for a refusal's `location`. */
export function placeOf(
  node: YamlNode | { readonly at: Position },
  path: readonly PathSegment[],
): { readonly line: number; readonly column: number; readonly pointer?: string } {
  const pointer = pointerOf(path);
  return { line: node.at.line, column: node.at.column, ...(pointer === '' ? {} : { pointer }) };
}
