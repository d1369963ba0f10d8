import { canonicalize, parseStrict } from '../src/core/json/index.js';
import { generateValue } from './generate.js';
import { type Benchmark, formatMiB } from './harness.js';

const TARGET_BYTES = 10 * 1024 * 1024;

/**
 * The JSON text of the generated value, with some non-ASCII characters
 * written as \u escapes (one BMP, one surrogate pair) so escape decoding is
 * part of the work. The replaced characters only ever occur inside strings.
 */
function documentText(): string {
  return JSON.stringify(generateValue(TARGET_BYTES - 64 * 1024, 0x5ea1))
    .replaceAll('Ж', '\\u0416')
    .replaceAll('𝄞', '\\ud834\\udd1e');
}

export const jsonParse: Benchmark = {
  name: 'json-parse',
  description: 'strict parse of UTF-8 bytes (parseStrict) against decoding plus the native JSON.parse',
  prepare() {
    const text = documentText();
    const bytes = new TextEncoder().encode(text);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const limits = { maxBytes: bytes.length };
    // Both sides must read the same document before their speed means anything.
    if (canonicalize(parseStrict(bytes, limits)) !== canonicalize(JSON.parse(text))) {
      throw new Error('parseStrict and JSON.parse disagree on the benchmark document');
    }
    return {
      workload: `${formatMiB(bytes.length)} document`,
      reference: 'JSON.parse(decode(bytes))',
      variants: [
        { name: 'JSON.parse(decode(bytes))', run: () => JSON.parse(decoder.decode(bytes)) },
        { name: 'parseStrict(bytes)', run: () => parseStrict(bytes, limits) },
        { name: 'JSON.parse(text) alone', run: () => JSON.parse(text) },
      ],
    };
  },
};
