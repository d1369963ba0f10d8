import { isAlias, isMap, isScalar, isSeq, type Node, parseAllDocuments } from 'yaml';
import { guardRefusals } from '../../core/refusal/index.js';
import { decimalOfShortest, parseDecimalLexeme, sameDecimal } from './decimal.js';
import { fieldPathOf } from './field-path.js';
import { refuseContract } from './refusals.js';
import { isWellFormedText } from './text.js';

/** What a resource file decodes to before schema validation. */
export type YamlValue = null | boolean | number | string | readonly YamlValue[] | YamlMapping;
export interface YamlMapping {
  readonly [key: string]: YamlValue;
}

export const MAX_YAML_DEPTH = 32;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Strict YAML 1.2 (core schema) for resource files: UTF-8 without a BOM,
 * exactly one document, no duplicate keys, no anchors, aliases or explicit
 * tags, string keys only, bounded depth, and numbers only as plain decimals
 * that a double holds exactly (anything else must be quoted, so no literal is
 * silently rounded). Parser messages quote the source and are dropped.
 */
export function parseStrictYaml(bytes: Uint8Array): YamlValue {
  const role = 'resource';
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw refuseContract('contract_yaml_not_utf8', { role });
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw refuseContract('contract_yaml_not_utf8', { role });
  }
  return guardRefusals(
    () => {
      const documents = parseAllDocuments(text, {
        version: '1.2',
        schema: 'core',
        uniqueKeys: true,
        merge: false,
        strict: true,
        prettyErrors: false,
        intAsBigInt: false,
      });
      if (!Array.isArray(documents) || documents.length !== 1) {
        throw refuseContract('contract_yaml_multiple_documents', { role });
      }
      const [document] = documents;
      if (document === undefined) throw refuseContract('contract_yaml_multiple_documents', { role });
      const problem = document.errors[0] ?? document.warnings[0];
      if (problem !== undefined) {
        if (problem.code === 'DUPLICATE_KEY') throw refuseContract('contract_yaml_duplicate_key', { role });
        if (problem.code === 'TAG_RESOLVE_FAILED') {
          throw refuseContract('contract_yaml_tag', { role });
        }
        if (problem.code === 'BAD_ALIAS' || problem.code === 'ALIAS_PROPS') {
          throw refuseContract('contract_yaml_alias', { role });
        }
        throw refuseContract('contract_yaml_malformed', { role });
      }
      if (document.contents === null) throw refuseContract('contract_yaml_multiple_documents', { role });
      return convert(document.contents, [], 1);
    },
    () => refuseContract('contract_yaml_malformed', { role }),
  );
}

function convert(node: unknown, path: readonly PropertyKey[], depth: number): YamlValue {
  const at = (): { role: string; field?: string } => {
    const field = fieldPathOf(path);
    return field === undefined ? { role: 'resource' } : { role: 'resource', field };
  };
  if (depth > MAX_YAML_DEPTH) throw refuseContract('contract_yaml_too_deep', at());
  if (isAlias(node)) throw refuseContract('contract_yaml_alias', at());
  const props = node as Node;
  if (props.anchor !== undefined) throw refuseContract('contract_yaml_alias', at());
  if (props.tag !== undefined) throw refuseContract('contract_yaml_tag', at());
  if (isMap(node)) {
    const out: Record<string, YamlValue> = Object.create(null);
    for (const pair of node.items) {
      const key = pair.key;
      if (isAlias(key)) throw refuseContract('contract_yaml_alias', at());
      if (!isScalar(key) || typeof key.value !== 'string') {
        throw refuseContract('contract_yaml_key_not_string', at());
      }
      if (key.anchor !== undefined) throw refuseContract('contract_yaml_alias', at());
      if (key.tag !== undefined) throw refuseContract('contract_yaml_tag', at());
      if (!isWellFormedText(key.value)) throw refuseContract('contract_text_invalid', at());
      const childPath = [...path, key.value];
      out[key.value] = pair.value === null ? null : convert(pair.value, childPath, depth + 1);
    }
    return out;
  }
  if (isSeq(node)) {
    return node.items.map((item, index) =>
      item === null ? null : convert(item, [...path, index], depth + 1),
    );
  }
  if (isScalar(node)) {
    const value: unknown = node.value;
    if (value === null || typeof value === 'boolean') return value;
    if (typeof value === 'string') {
      if (!isWellFormedText(value)) throw refuseContract('contract_text_invalid', at());
      return value;
    }
    if (typeof value === 'number') return exactNumber(value, node.source, at);
    throw refuseContract('contract_yaml_malformed', at());
  }
  throw refuseContract('contract_yaml_malformed', at());
}

function exactNumber(value: number, source: unknown, at: () => { role: string; field?: string }): number {
  const lexeme = typeof source === 'string' ? parseDecimalLexeme(source) : undefined;
  if (lexeme === undefined || !Number.isFinite(value) || !sameDecimal(lexeme, decimalOfShortest(value))) {
    throw refuseContract('contract_yaml_number_inexact', at());
  }
  return value;
}
