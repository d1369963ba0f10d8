// The module itself, not the index: the index also loads the YAML reader.
import { decodeUtf8Strict } from '../input/utf8.js';
import { guardRefusals, refuseInternal } from '../refusal/index.js';
import { type GrammarLimits, StrictGrammar } from './grammar.js';
import { refuseJson } from './refusals.js';
import { DEFAULT_JSON_LIMITS, type JsonLimits, type JsonValue } from './value.js';

/**
 * Parses one JSON document strictly: UTF-8 without a BOM, RFC 8259 grammar,
 * no duplicate keys, no lone surrogates, bounded size, depth and integer
 * length, numbers exact (see JsonValue). Every failure is a `json_*` Refusal;
 * no other exception leaves this function. A refusal found in the text says
 * where: `location.line` and `location.column` (1-based, the column in
 * characters) of the first fault, and often a `hint`; the caller adds the
 * file name with `refusal.at({ path })` (docs/json.md#reading-an-error).
 */
export function parseStrict(bytes: Uint8Array, limits?: Partial<JsonLimits>): JsonValue {
  return guardRefusals(
    () => {
      const bounds = resolveLimits(limits);
      // Before decoding: the decoder's work and memory grow with the input.
      if (bytes.length > bounds.maxBytes) throw refuseJson('json_too_large');
      // The one core decoder and its BOM policy (refused, never stripped).
      const decoded = decodeUtf8Strict(bytes);
      if (!decoded.ok) {
        throw refuseJson('json_not_utf8', {
          location: { line: decoded.line, column: decoded.column },
          hint: decoded.reason === 'bom' ? NOT_UTF8_HINT.bom : NOT_UTF8_HINT.invalid,
        });
      }
      return new StrictGrammar(decoded.text, bounds).parseDocument();
    },
    () => refuseJson('json_malformed'),
  );
}

const NOT_UTF8_HINT = {
  bom: 'the file starts with a byte order mark: save it as UTF-8 without BOM',
  invalid: 'this byte is not UTF-8: save the file as UTF-8',
} as const;

interface ResolvedLimits extends GrammarLimits {
  readonly maxBytes: number;
}

function resolveLimits(limits: Partial<JsonLimits> | undefined): ResolvedLimits {
  const resolved: ResolvedLimits = {
    maxBytes: limits?.maxBytes ?? DEFAULT_JSON_LIMITS.maxBytes,
    maxDepth: limits?.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth,
    maxIntegerDigits: limits?.maxIntegerDigits ?? DEFAULT_JSON_LIMITS.maxIntegerDigits ?? 4300,
  };
  // A NaN or negative bound would silently disable its check: that is a
  // caller bug, not a property of the document.
  for (const bound of [resolved.maxBytes, resolved.maxDepth, resolved.maxIntegerDigits]) {
    if (!Number.isSafeInteger(bound) || bound < 0) throw refuseInternal('internal_error');
  }
  return resolved;
}
