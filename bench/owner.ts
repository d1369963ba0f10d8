import { parseStrict } from '../src/core/json/index.js';
import { toCanonical } from '../src/owner/fixtures/build.js';
import { buildExactSize, HALF, MAXIMAL, scaledSpec } from '../src/owner/fixtures/maximal.js';
import { MAX_OWNER_BYTES, ScopedExecutionOwner } from '../src/owner/index.js';
import { type Benchmark, formatMiB } from './harness.js';

const HALF_BYTES = MAX_OWNER_BYTES / 2;

/**
 * Decode + verify (`ScopedExecutionOwner.fromBytes` with the expected
 * digest: bound, digest, strict parse, every rule of docs/owner.md#rules, exact
 * canonical bytes) of a maximal owner document — the limits of docs/owner.md#limits at their
 * maximum, padded to exactly 8 MiB — and of one with half of every count at
 * exactly 4 MiB. Targets: ≤ 0.5 s for 8 MiB; the 8 MiB/4 MiB ratio ≤ 2.3.
 */
export const ownerBenchmark: Benchmark = {
  name: 'owner',
  description: 'scoped execution owner: decode + verify of a maximal 8 MiB document and of one half its size',
  prepare() {
    const full = toCanonical(buildExactSize(scaledSpec(MAXIMAL), MAX_OWNER_BYTES).owner);
    const half = toCanonical(buildExactSize(scaledSpec(HALF), HALF_BYTES).owner);
    const fullOwner = ScopedExecutionOwner.fromBytes(full.bytes, { expectedSha256: full.sha256 });
    const halfOwner = ScopedExecutionOwner.fromBytes(half.bytes, { expectedSha256: half.sha256 });
    if (fullOwner.subjectSha256 !== full.sha256 || halfOwner.subjectSha256 !== half.sha256) {
      throw new Error('the benchmark documents do not round-trip');
    }
    const limits = { maxBytes: MAX_OWNER_BYTES, maxDepth: 16 };
    return {
      workload: `${formatMiB(full.bytes.length)} (256 claims, 8192 objects, 8192 subjects, 8192 effects, 4096 bindings, 64 workloads, 64 seals) and ${formatMiB(half.bytes.length)} (half of each)`,
      reference: 'decode+verify 4 MiB',
      variants: [
        {
          name: 'decode+verify 4 MiB',
          run: () => ScopedExecutionOwner.fromBytes(half.bytes, { expectedSha256: half.sha256 }),
        },
        {
          name: 'decode+verify 8 MiB',
          run: () => ScopedExecutionOwner.fromBytes(full.bytes, { expectedSha256: full.sha256 }),
        },
        { name: 'strict parse only, 8 MiB', run: () => parseStrict(full.bytes, limits) },
        { name: 'describe() (revalidate, R, E, epochs), 8 MiB', run: () => fullOwner.describe() },
      ],
    };
  },
};
