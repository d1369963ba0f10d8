import { defineRefusals } from '../refusal/index.js';

/**
 * Why a document was not parsed (`json_*`) or a value was not serialized
 * (`canonical_*`). Messages are fixed: they never quote the offending bytes,
 * keys or values, which may be customer data.
 */
export type JsonRefusalCode =
  | 'json_not_utf8'
  | 'json_malformed'
  | 'json_duplicate_key'
  | 'json_too_large'
  | 'json_too_deep'
  | 'json_integer_too_long'
  | 'json_lone_surrogate'
  | 'json_trailing_data'
  | 'canonical_unsupported_value'
  | 'canonical_non_finite'
  | 'canonical_lone_surrogate'
  | 'canonical_float_refused'
  | 'canonical_unsafe_integer'
  | 'canonical_too_deep';

export const refuseJson = defineRefusals<JsonRefusalCode>({
  json_not_utf8: {
    category: 'malformed',
    message: 'the document is not valid UTF-8 without a byte order mark',
  },
  json_malformed: {
    category: 'malformed',
    message: 'the document is not well-formed JSON',
  },
  json_duplicate_key: {
    category: 'malformed',
    message: 'a JSON object repeats a key',
  },
  json_too_large: {
    category: 'oversized',
    message: 'the document exceeds the size limit',
  },
  json_too_deep: {
    category: 'oversized',
    message: 'the document nests arrays and objects deeper than the limit',
  },
  json_integer_too_long: {
    category: 'oversized',
    message: 'an integer in the document has more digits than the limit',
  },
  json_lone_surrogate: {
    category: 'malformed',
    message: 'a JSON string escapes a lone UTF-16 surrogate',
  },
  json_trailing_data: {
    category: 'malformed',
    message: 'the document continues after its JSON value',
  },
  canonical_unsupported_value: {
    category: 'unsupported',
    message:
      'the value holds something other than null, booleans, numbers, strings, arrays and plain objects',
  },
  canonical_non_finite: {
    category: 'unsupported',
    message: 'the value holds NaN or an infinite number',
  },
  canonical_lone_surrogate: {
    category: 'unsupported',
    message: 'the value holds a string with a lone UTF-16 surrogate',
  },
  canonical_float_refused: {
    category: 'unsupported',
    message: 'the value holds a non-integer number, which this serializer refuses',
  },
  canonical_unsafe_integer: {
    category: 'unsupported',
    message: 'the value holds an integer outside the range this serializer writes exactly',
  },
  canonical_too_deep: {
    category: 'oversized',
    message: 'the value nests arrays and objects deeper than the limit, or refers to itself',
  },
});
