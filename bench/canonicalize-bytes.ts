import npmCanonicalize from 'canonicalize';
import { canonicalizeToBytes } from '../src/core/json/index.js';
import { generateValue } from './generate.js';
import { type Benchmark, formatMiB } from './harness.js';

const TARGET_BYTES = 1024 * 1024;

/**
 * The digest path: canonical UTF-8 bytes, not just a string. Encoding reads
 * every character, so a serializer that leaves its result as an unflattened
 * rope pays for flattening here instead of hiding it.
 */
export const canonicalizeBytesBenchmark: Benchmark = {
  name: 'canonicalize-bytes',
  description: 'RFC 8785 to UTF-8 bytes: canonicalizeToBytes against npm canonicalize plus TextEncoder',
  prepare() {
    const value = generateValue(TARGET_BYTES, 0xc0de);
    const encoder = new TextEncoder();
    const expected = encoder.encode(npmCanonicalize(value));
    const ours = canonicalizeToBytes(value);
    if (Buffer.compare(Buffer.from(ours), Buffer.from(expected)) !== 0) {
      throw new Error('sealkit and npm canonicalize disagree on the benchmark value');
    }
    return {
      workload: `${formatMiB(expected.length)} value (canonical UTF-8 size)`,
      reference: 'encode(npm canonicalize)',
      variants: [
        { name: 'encode(npm canonicalize)', run: () => encoder.encode(npmCanonicalize(value)) },
        { name: 'sealkit canonicalizeToBytes', run: () => canonicalizeToBytes(value) },
        { name: 'encode(JSON.stringify) (not canonical)', run: () => encoder.encode(JSON.stringify(value)) },
      ],
    };
  },
};
