import { z } from 'zod';
import { ResourceSchema } from './schemas/resource.js';

/**
 * Refusal field paths are built from schema keys only: an authored key that
 * the schemas do not define (a typo, or customer data in a key) never reaches
 * a message. Indices become `[]`.
 */
let knownKeys: ReadonlySet<string> | undefined;

function collectKeys(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectKeys(item, into);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const properties = record.properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const key of Object.keys(properties)) into.add(key);
  }
  for (const value of Object.values(record)) collectKeys(value, into);
}

export function schemaKeys(): ReadonlySet<string> {
  if (knownKeys === undefined) {
    const keys = new Set<string>();
    collectKeys(z.toJSONSchema(ResourceSchema, { io: 'input' }), keys);
    knownKeys = keys;
  }
  return knownKeys;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `['fields', 3, 'type']` → `fields[].type`; stops at the first segment that is not a schema key. */
export function fieldPathOf(segments: readonly PropertyKey[]): string | undefined {
  const keys = schemaKeys();
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (path === '') break;
      path += '[]';
      continue;
    }
    if (typeof segment !== 'string' || !KEY.test(segment) || !keys.has(segment)) break;
    path = path === '' ? segment : `${path}.${segment}`;
  }
  return path === '' ? undefined : path;
}
