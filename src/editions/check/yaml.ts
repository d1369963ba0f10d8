import {
  faultPlaceHint,
  type PathSegment,
  type Position,
  pointerOf,
  readStrictYaml,
  type YamlFault,
  type YamlFaultPlace,
  type YamlNode,
} from '../../core/input/index.js';
import { defineRefusals } from '../../core/refusal/index.js';

export type YamlValue = null | boolean | number | string | readonly YamlValue[] | YamlMapping;
export interface YamlMapping {
  readonly [key: string]: YamlValue;
}

export type YamlParse =
  | { readonly ok: true; readonly value: YamlValue; readonly node: YamlNode }
  | { readonly ok: false; readonly fault: YamlFault; readonly place: YamlFaultPlace };

/**
 * Carries a fault out of the core reader's `refuse` callback as details of an
 * ordinary refusal; it never leaves this module, which maps the fault to the
 * finding of the file it read.
 */
const signalFault = defineRefusals<
  'editions_yaml_fault',
  { readonly editions_yaml_fault: { readonly fault: YamlFault; readonly place: YamlFaultPlace } }
>({
  editions_yaml_fault: { category: 'malformed', message: 'a dbt YAML file breaks the strict YAML rules' },
});

const MAX_DEPTH = 64;

/**
 * Strict YAML for dbt files and --vars, through the one strict reader
 * (docs/refusals.md#text-inputs): UTF-8 without a BOM, one document, no
 * duplicate keys, anchors, aliases or tags, string keys only. YAML 1.2 core
 * schema (`yes`/`no` stay strings, unlike dbt's PyYAML); the starter
 * editions write `true`/`false`, which both read alike. A fault says where
 * it is (line, column, key path), never what the text there is.
 */
export function parseYaml(input: Uint8Array | string): YamlParse {
  let node: YamlNode;
  try {
    node = readStrictYaml(input, {
      maxDepth: MAX_DEPTH,
      // A tag or an anchor is refused where it is written, not at the value it is on.
      refuse: (fault, place) =>
        signalFault('editions_yaml_fault', {
          details: { fault, place: place.prop === undefined ? place : { ...place, ...place.prop } },
        }),
    });
  } catch (error: unknown) {
    if (signalFault.is(error)) return { ok: false, fault: error.details.fault, place: error.details.place };
    return { ok: false, fault: 'malformed', place: {} };
  }
  const value = toYamlValue(node);
  if (value === undefined) return { ok: false, fault: 'malformed', place: {} };
  return { ok: true, value, node };
}

/** Plain data with ordinary (frozen-property) objects, as dbt's JSON schemas and the planner read it. */
function toYamlValue(node: YamlNode): YamlValue | undefined {
  switch (node.kind) {
    case 'null':
      return null;
    case 'boolean':
    case 'string':
      return node.value;
    case 'number':
      return Number.isFinite(node.value) ? node.value : undefined;
    case 'seq': {
      const items: YamlValue[] = [];
      for (const item of node.items) {
        const converted = toYamlValue(item);
        if (converted === undefined) return undefined;
        items.push(converted);
      }
      return items;
    }
    case 'map': {
      const out: { [key: string]: YamlValue } = {};
      for (const entry of node.entries) {
        const converted = toYamlValue(entry.value);
        if (converted === undefined) return undefined;
        Object.defineProperty(out, entry.key, { value: converted, enumerable: true, writable: false });
      }
      return out;
    }
  }
}

/** Where a value sits in a document: line and column of the deepest node on `path` that exists. */
export interface YamlPlace {
  readonly line?: number;
  readonly column?: number;
  readonly pointer?: string;
}

/** The node at `path`, or undefined when the document has none there. */
export function nodeIn(node: YamlNode | undefined, path: readonly PathSegment[]): YamlNode | undefined {
  let current = node;
  for (const segment of path) {
    if (current?.kind === 'map' && typeof segment === 'string')
      current = current.entries.find((candidate) => candidate.key === segment)?.value;
    else if (current?.kind === 'seq' && typeof segment === 'number') current = current.items[segment];
    else return undefined;
  }
  return current;
}

export function placeIn(node: YamlNode | undefined, path: readonly PathSegment[]): YamlPlace {
  let at: Position | undefined = node?.at;
  let current = node;
  for (const segment of path) {
    if (current === undefined) break;
    if (current.kind === 'map' && typeof segment === 'string') {
      const entry = current.entries.find((candidate) => candidate.key === segment);
      if (entry === undefined) break;
      at = entry.keyAt;
      current = entry.value;
    } else if (current.kind === 'seq' && typeof segment === 'number') {
      current = current.items[segment];
      if (current !== undefined) at = current.at;
    } else break;
  }
  const pointer = pointerOf(path);
  return {
    ...(at === undefined ? {} : { line: at.line, column: at.column }),
    ...(pointer === '' ? {} : { pointer }),
  };
}

/**
 * The user's words for a YAML fault, as a hint: what to change, never what
 * the file says (a repeated key names itself and the line of its first use).
 */
export function yamlFaultHint(fault: YamlFault, place: YamlFaultPlace = {}): string {
  const duplicate = faultPlaceHint(place);
  if (duplicate !== undefined) return duplicate;
  const hints: { readonly [K in YamlFault]: string } = {
    not_utf8: 'save the file as UTF-8 without a byte order mark',
    malformed: 'the YAML does not parse here (tabs cannot indent YAML; check quotes and brackets)',
    duplicate_key: 'this key is written twice in the same mapping',
    multiple_documents: 'the file holds more than one YAML document (a second ---)',
    alias: 'anchors and aliases (&name, *name) are not read; write the value out',
    tag: 'explicit tags (!name) are not read',
    directive: 'YAML directives (%YAML, %TAG) are not read',
    key_not_string: 'keys must be plain strings',
    too_deep: 'the document nests too deeply',
  };
  return hints[fault];
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
