import {
  faultPlaceHint,
  type PathSegment,
  plainOf,
  pointerOf,
  readStrictYaml,
  type YamlFault,
  type YamlNode,
} from '../../core/input/index.js';
import { type Refusal, refuseAll } from '../../core/refusal/index.js';
import { decimalOfShortest, parseDecimalLexeme, sameDecimal } from './decimal.js';
import { fieldPathOf } from './field-path.js';
import { type ContractRefusalCode, refuseContract } from './refusals.js';
import { isWellFormedText } from './text.js';

/** What a resource file decodes to before schema validation. */
export type YamlValue = null | boolean | number | string | readonly YamlValue[] | YamlMapping;
export interface YamlMapping {
  readonly [key: string]: YamlValue;
}

/** A resource file read strictly: the plain value, and the node tree that says where each part is. */
export interface ResourceDocument {
  readonly value: YamlValue;
  readonly node: YamlNode;
}

/**
 * A resource file that parsed as YAML, with every value-level fault found in
 * it (a number a double does not hold exactly, text that is not well-formed),
 * so that schema errors elsewhere in the same file are reported with them.
 */
export interface CheckedDocument extends ResourceDocument {
  readonly faults: readonly Refusal[];
}

export const MAX_YAML_DEPTH = 32;

/** The two ways to hold other than one document, told apart: the code covers both. */
const EMPTY_FILE_HINT =
  'the file is empty (nothing but blank lines and comments): write one resource in it, or delete it';
const SECOND_DOCUMENT_HINT =
  'a second YAML document starts here: a resource file holds one resource; put each in its own file';

const FAULT_CODES: { readonly [F in YamlFault]: ContractRefusalCode } = {
  not_utf8: 'contract_yaml_not_utf8',
  malformed: 'contract_yaml_malformed',
  duplicate_key: 'contract_yaml_duplicate_key',
  multiple_documents: 'contract_yaml_multiple_documents',
  alias: 'contract_yaml_alias',
  tag: 'contract_yaml_tag',
  directive: 'contract_yaml_malformed',
  key_not_string: 'contract_yaml_key_not_string',
  too_deep: 'contract_yaml_too_deep',
};

const ROLE = 'resource';

/** Where the bound is crossed is the refusal's place; the hint says the bound. */
const DEPTH_HINT = `mappings and lists nest at most ${MAX_YAML_DEPTH} levels deep in a resource file (the file itself is level 1); this value is at level ${MAX_YAML_DEPTH + 1}`;

/**
 * Strict YAML 1.2 for resource files, through the core reader
 * (docs/refusals.md#text-inputs), plus two contract rules: every key and
 * string is well-formed Unicode text, and numbers are plain decimals that a
 * double holds exactly (anything else must be quoted, so no literal is
 * silently rounded). An empty file is refused like a second document:
 * a resource file holds exactly one.
 */
export function readResourceYaml(bytes: Uint8Array): ResourceDocument {
  const document = readResourceDocument(bytes);
  if (document.faults.length > 0) throw refuseAll(document.faults);
  return { value: document.value, node: document.node };
}

/**
 * The same, returning the value-level faults instead of throwing them; a
 * fault of the YAML itself (syntax, a repeated key, an alias) still throws,
 * as nothing after it can be read.
 */
export function readResourceDocument(bytes: Uint8Array): CheckedDocument {
  const node = readStrictYaml(bytes, {
    maxDepth: MAX_YAML_DEPTH,
    refuse: (fault, place) => {
      const hint =
        fault === 'not_utf8'
          ? utf8Hint(bytes)
          : fault === 'too_deep'
            ? DEPTH_HINT
            : fault === 'multiple_documents'
              ? SECOND_DOCUMENT_HINT
              : faultPlaceHint(place);
      return refuseContract(FAULT_CODES[fault], {
        role: ROLE,
        // A tag or an anchor is refused where it is written, not at the value it is on.
        location: place.prop === undefined ? place : { ...place, ...place.prop },
        ...(hint === undefined ? {} : { hint }),
      });
    },
  });
  if (node.kind === 'null' && isBlank(bytes)) {
    throw refuseContract('contract_yaml_multiple_documents', {
      role: ROLE,
      location: { line: 1, column: 1 },
      hint: EMPTY_FILE_HINT,
    });
  }
  const faults: Refusal[] = [];
  checkNode(node, [], faults);
  return { value: plainOf(node) as YamlValue, node, faults };
}

/** The plain value of a resource file (see readResourceYaml). */
export function parseStrictYaml(bytes: Uint8Array): YamlValue {
  return readResourceYaml(bytes).value;
}

function utf8Hint(bytes: Uint8Array): string {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
    ? 'save the file as UTF-8 without a byte order mark'
    : 'save the file as UTF-8';
}

// Only comments and white space: YAML reads it as no document at all.
function isBlank(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes).toString('utf8');
  return text.split('\n').every((line) => /^\s*(#.*)?$/.test(line));
}

/** Collects every value-level fault under `node`, in document order. */
function checkNode(node: YamlNode, path: readonly PathSegment[], faults: Refusal[]): void {
  const refuse = (
    code: ContractRefusalCode,
    at: YamlNode | { readonly at: YamlNode['at'] },
    where = path,
  ) => {
    const field = fieldPathOf(where);
    const pointer = pointerOf(where);
    return refuseContract(code, {
      role: ROLE,
      ...(field === undefined ? {} : { field }),
      location: { line: at.at.line, column: at.at.column, ...(pointer === '' ? {} : { pointer }) },
    });
  };
  switch (node.kind) {
    case 'map':
      for (const entry of node.entries) {
        const childPath = [...path, entry.key];
        if (!isWellFormedText(entry.key))
          faults.push(refuse('contract_text_invalid', { at: entry.keyAt }, childPath));
        else checkNode(entry.value, childPath, faults);
      }
      return;
    case 'seq':
      node.items.forEach((item, index) => {
        checkNode(item, [...path, index], faults);
      });
      return;
    case 'string':
      if (!isWellFormedText(node.value)) faults.push(refuse('contract_text_invalid', node));
      return;
    case 'number': {
      const lexeme = parseDecimalLexeme(node.source);
      if (
        lexeme === undefined ||
        !Number.isFinite(node.value) ||
        !sameDecimal(lexeme, decimalOfShortest(node.value))
      ) {
        faults.push(refuse('contract_yaml_number_inexact', node));
      }
      return;
    }
    default:
      return;
  }
}
