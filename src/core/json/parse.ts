import { guardRefusals, refuseInternal } from '../refusal/index.js';
import { type GrammarLimits, StrictGrammar } from './grammar.js';
import { refuseJson } from './refusals.js';
import { DEFAULT_JSON_LIMITS, type JsonLimits, type JsonValue } from './value.js';

// `ignoreBOM: true` keeps a byte order mark in the text instead of silently
// dropping it; parseStrict refuses it before decoding anyway.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses one JSON document strictly: UTF-8 without a BOM, RFC 8259 grammar,
 * no duplicate keys, no lone surrogates, bounded size, depth and integer
 * length, numbers exact (see JsonValue). Every failure is a `json_*` Refusal;
 * no other exception leaves this function.
 */
export function parseStrict(bytes: Uint8Array, limits?: Partial<JsonLimits>): JsonValue {
  return guardRefusals(
    () => {
      const bounds = resolveLimits(limits);
      // Before decoding: the decoder's work and memory grow with the input.
      if (bytes.length > bounds.maxBytes) throw refuseJson('json_too_large');
      if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        throw refuseJson('json_not_utf8');
      }
      let text: string;
      try {
        text = decoder.decode(bytes);
      } catch {
        throw refuseJson('json_not_utf8');
      }
      return new StrictGrammar(text, bounds).parseDocument();
    },
    () => refuseJson('json_malformed'),
  );
}

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
