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
  /** Untimed work before every operation (e.g. a fresh empty destination). */
  readonly setup?: () => void;
}

export interface PreparedBenchmark {
  /** What one operation processes, e.g. "10.0 MiB document". */
  readonly workload: string;
  /** The variant the others are compared with (ratio = variant / reference time). */
  readonly reference: string;
  readonly variants: readonly Variant[];
  /** Figures other than time (peak RSS, target ratios), read once after the last round. */
  readonly notes?: () => Readonly<Record<string, string | number>>;
  /** Removes what `prepare` created; called after the notes, also when a round throws. */
  readonly dispose?: () => void;
}

export interface Benchmark {
  readonly name: string;
  readonly description: string;
  /** Overrides for heavy workloads (e.g. fewer rounds of a 1 GiB publication). */
  readonly runOptions?: Partial<RunOptions>;
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
  /** Median wall-clock time of one operation. */
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Median process CPU time (user + system, all threads) of one operation. */
  readonly cpuMs: number;
  readonly opsPerSecond: number;
  /**
   * Median over rounds of (this variant's time / the reference's time in the
   * same round): paired within a round, so load from other processes that
   * comes and goes affects both sides of each ratio alike.
   */
  readonly ratio: number;
  readonly opsPerSample: number;
}

export interface BenchmarkResult {
  readonly name: string;
  readonly description: string;
  readonly workload: string;
  readonly reference: string;
  readonly variants: readonly VariantResult[];
  readonly notes?: Readonly<Record<string, string | number>>;
}

let sink: unknown;

/** Keeps the last result reachable so no operation is optimized away. */
export function lastResult(): unknown {
  return sink;
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function timeOnce(variant: Variant, ops: number): Sample {
  if (variant.setup !== undefined) {
    let wallMs = 0;
    let cpuMs = 0;
    for (let i = 0; i < ops; i++) {
      variant.setup();
      const one = timeOnce({ name: variant.name, run: variant.run }, 1);
      wallMs += one.wallMs;
      cpuMs += one.cpuMs;
    }
    return { wallMs: wallMs / ops, cpuMs: cpuMs / ops };
  }
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sink = variant.run();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6 / ops;
  const cpu = process.cpuUsage(cpuStart);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1e3 / ops };
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
  try {
    return measure(benchmark, prepared, { ...options, ...benchmark.runOptions });
  } finally {
    prepared.dispose?.();
  }
}

function measure(benchmark: Benchmark, prepared: PreparedBenchmark, options: RunOptions): BenchmarkResult {
  const { variants } = prepared;
  const referenceIndex = variants.findIndex((variant) => variant.name === prepared.reference);
  if (referenceIndex < 0)
    throw new Error(`benchmark ${benchmark.name} has no variant named as its reference`);
  const opsPerSample = variants.map((variant) => {
    const warm: number[] = [];
    for (let i = 0; i < options.warmupRuns; i++) warm.push(timeOnce(variant, 1).wallMs);
    return Math.max(1, Math.ceil(options.minSampleMs / Math.max(median(warm), 1e-6)));
  });
  // rounds[r][v]: the sample of variant v in round r.
  const rounds: Sample[][] = [];
  for (let round = 0; round < options.rounds; round++) {
    const samples: Sample[] = new Array<Sample>(variants.length);
    for (let k = 0; k < variants.length; k++) {
      const index = (k + round) % variants.length;
      const variant = variants[index];
      if (variant !== undefined) samples[index] = timeOnce(variant, opsPerSample[index] ?? 1);
    }
    rounds.push(samples);
  }
  const column = (index: number): Sample[] =>
    rounds.map((samples) => samples[index] ?? { wallMs: Number.NaN, cpuMs: Number.NaN });
  const reference = column(referenceIndex);
  return {
    name: benchmark.name,
    description: benchmark.description,
    workload: prepared.workload,
    reference: prepared.reference,
    variants: variants.map((variant, index) => {
      const own = column(index);
      const wall = own.map((sample) => sample.wallMs);
      const medianMs = median(wall);
      return {
        name: variant.name,
        medianMs,
        minMs: Math.min(...wall),
        maxMs: Math.max(...wall),
        cpuMs: median(own.map((sample) => sample.cpuMs)),
        opsPerSecond: 1000 / medianMs,
        ratio: median(own.map((sample, round) => sample.wallMs / (reference[round]?.wallMs ?? Number.NaN))),
        opsPerSample: opsPerSample[index] ?? 1,
      };
    }),
    ...(prepared.notes === undefined ? {} : { notes: prepared.notes() }),
  };
}

export function formatMiB(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}
