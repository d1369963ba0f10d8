/**
 * A small side-by-side benchmark harness: every variant of a benchmark runs in
 * the same process on the same workload, in interleaved rounds (rotating the
 * order each round), so drift in CPU frequency or GC pressure hits all
 * variants alike. Figures are medians of per-round samples.
 */

export interface Variant {
  readonly name: string;
  /** One operation; its result is kept so the engine cannot drop the work. */
  readonly run: () => unknown;
}

export interface PreparedBenchmark {
  /** What one operation processes, e.g. "10.0 MiB document". */
  readonly workload: string;
  /** The variant the others are compared with (ratio = variant / reference time). */
  readonly reference: string;
  readonly variants: readonly Variant[];
}

export interface Benchmark {
  readonly name: string;
  readonly description: string;
  /** Builds the workload and checks the variants agree before anything is timed. */
  prepare(): PreparedBenchmark;
}

export interface RunOptions {
  readonly warmupRuns: number;
  readonly rounds: number;
  /** A sample repeats an operation until at least this long, so fast ops are measurable. */
  readonly minSampleMs: number;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = { warmupRuns: 5, rounds: 15, minSampleMs: 50 };

export interface VariantResult {
  readonly name: string;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly opsPerSecond: number;
  readonly ratio: number;
  readonly opsPerSample: number;
}

export interface BenchmarkResult {
  readonly name: string;
  readonly description: string;
  readonly workload: string;
  readonly reference: string;
  readonly variants: readonly VariantResult[];
}

let sink: unknown;

/** Keeps the last result reachable so no operation is optimized away. */
export function lastResult(): unknown {
  return sink;
}

function timeOnce(variant: Variant, ops: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sink = variant.run();
  return Number(process.hrtime.bigint() - start) / 1e6 / ops;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

export function runBenchmark(
  benchmark: Benchmark,
  options: RunOptions = DEFAULT_RUN_OPTIONS,
): BenchmarkResult {
  const prepared = benchmark.prepare();
  const { variants } = prepared;
  const opsPerSample = variants.map((variant) => {
    const warm: number[] = [];
    for (let i = 0; i < options.warmupRuns; i++) warm.push(timeOnce(variant, 1));
    return Math.max(1, Math.ceil(options.minSampleMs / Math.max(median(warm), 1e-6)));
  });
  const samples = variants.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (k + round) % variants.length;
      const variant = variants[index];
      const target = samples[index];
      if (variant === undefined || target === undefined) continue;
      target.push(timeOnce(variant, opsPerSample[index] ?? 1));
    }
  }
  const referenceIndex = variants.findIndex((variant) => variant.name === prepared.reference);
  const referenceMs = median(samples[referenceIndex] ?? []);
  return {
    name: benchmark.name,
    description: benchmark.description,
    workload: prepared.workload,
    reference: prepared.reference,
    variants: variants.map((variant, index) => {
      const own = samples[index] ?? [];
      const medianMs = median(own);
      return {
        name: variant.name,
        medianMs,
        minMs: Math.min(...own),
        maxMs: Math.max(...own),
        opsPerSecond: 1000 / medianMs,
        ratio: medianMs / referenceMs,
        opsPerSample: opsPerSample[index] ?? 1,
      };
    }),
  };
}

export function formatMiB(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}
