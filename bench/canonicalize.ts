import npmCanonicalize from 'canonicalize';
import { canonicalize } from '../src/core/json/index.js';
import { generateValue } from './generate.js';
import { type Benchmark, formatMiB } from './harness.js';

const TARGET_BYTES = 1024 * 1024;

export const canonicalizeBenchmark: Benchmark = {
  name: 'canonicalize',
  description: 'RFC 8785 serialization: sealkit canonicalize against the npm canonicalize package',
  prepare() {
    const value = generateValue(TARGET_BYTES, 0xc0de);
    const expected = npmCanonicalize(value);
    if (canonicalize(value) !== expected) {
      throw new Error('sealkit and npm canonicalize disagree on the benchmark value');
    }
    return {
      workload: `${formatMiB(new TextEncoder().encode(expected).length)} value (canonical UTF-8 size)`,
      reference: 'npm canonicalize',
      variants: [
        { name: 'npm canonicalize', run: () => npmCanonicalize(value) },
        { name: 'sealkit canonicalize', run: () => canonicalize(value) },
        { name: 'JSON.stringify (not canonical)', run: () => JSON.stringify(value) },
      ],
    };
  },
};
