import { z } from 'zod';
import { type Sha256Hex, sha256Hex } from '../../core/digest/index.js';
import { canonicalize } from '../../core/json/index.js';
import { RESOURCE_KINDS, RESOURCE_SCHEMAS } from '../authoring/schemas/resource.js';

/** One reviewed exclusion: an authored field path (`Kind.path`), why it is not identity, and its shape. */
export interface ExclusionEntry {
  readonly path: string;
  readonly reason: string;
  readonly shape_sha256: string;
}

export interface CoverageIssue {
  readonly problem: 'unclassified' | 'overlap' | 'stale' | 'reshaped';
  /** `Kind.field.path`; for `reshaped`, `actual` is the shape hash the schema has now. */
  readonly path: string;
  readonly actual?: string;
}

type JsonSchemaNode = { readonly [key: string]: unknown };

/** The generated JSON Schema of each authoring kind: the shapes the manifest is bound to. */
export function authoringJsonSchemas(): { readonly [kind: string]: JsonSchemaNode } {
  const out: { [kind: string]: JsonSchemaNode } = {};
  for (const kind of RESOURCE_KINDS) {
    out[kind] = z.toJSONSchema(RESOURCE_SCHEMAS[kind], { io: 'input' }) as JsonSchemaNode;
  }
  return out;
}

const PROSE_KEYS = new Set(['description', 'title', 'examples', '$schema']);

function stripProse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripProse);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (!PROSE_KEYS.has(key)) out[key] = stripProse(value);
  return out;
}

/** SHA-256 of a field's generated schema (without its documentation text), RFC 8785 encoded. */
export function fieldShapeHash(fragment: unknown): Sha256Hex {
  return sha256Hex(canonicalize(stripProse(fragment)));
}

/** The object variants of a node: itself, or each member of a oneOf/anyOf. */
function variants(node: JsonSchemaNode): JsonSchemaNode[] {
  const members = (node.oneOf ?? node.anyOf) as JsonSchemaNode[] | undefined;
  return members === undefined ? [node] : members.flatMap(variants);
}

/**
 * Checks that the projection allowlist and the exclusion manifest classify
 * every authored field of the generated schemas exactly once. Projected
 * fields are descended into (their children must be classified too);
 * excluded fields are bound, whole, to the hash of their shape.
 */
export function checkProjectionCoverage(
  schemas: { readonly [kind: string]: JsonSchemaNode },
  projected: { readonly [kind: string]: readonly string[] },
  exclusions: readonly ExclusionEntry[],
): CoverageIssue[] {
  const issues: CoverageIssue[] = [];
  const excluded = new Map<string, ExclusionEntry>();
  for (const entry of exclusions) excluded.set(entry.path, entry);
  const allowed = new Set<string>();
  for (const [kind, paths] of Object.entries(projected))
    for (const path of paths) allowed.add(`${kind}.${path}`);
  for (const path of allowed) if (excluded.has(path)) issues.push({ problem: 'overlap', path });

  const seen = new Set<string>();
  const reshaped = new Set<string>();
  const classify = (path: string, node: JsonSchemaNode): void => {
    const exclusion = excluded.get(path);
    if (exclusion !== undefined) {
      seen.add(path);
      const actual = fieldShapeHash(node);
      if (actual !== exclusion.shape_sha256 && !reshaped.has(path)) {
        reshaped.add(path);
        issues.push({ problem: 'reshaped', path, actual });
      }
      return;
    }
    if (!allowed.has(path)) {
      if (!seen.has(path)) issues.push({ problem: 'unclassified', path });
      seen.add(path);
      return;
    }
    seen.add(path);
    descend(path, node);
  };
  const descend = (path: string, node: JsonSchemaNode): void => {
    for (const variant of variants(node)) {
      if (variant.type === 'array' && typeof variant.items === 'object' && variant.items !== null) {
        descend(`${path}[]`, variant.items as JsonSchemaNode);
      }
      const properties = variant.properties as { readonly [key: string]: JsonSchemaNode } | undefined;
      if (properties === undefined) continue;
      for (const [key, child] of Object.entries(properties)) {
        classify(`${path}.${key}`, child);
      }
    }
  };

  for (const [kind, schema] of Object.entries(schemas)) {
    const exclusion = excluded.get(kind);
    if (exclusion !== undefined) {
      classify(kind, schema);
      continue;
    }
    seen.add(kind);
    descend(kind, schema);
  }
  for (const path of [...allowed, ...excluded.keys()]) {
    if (!seen.has(path)) issues.push({ problem: 'stale', path });
  }
  return issues.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.problem < b.problem ? -1 : 1));
}
