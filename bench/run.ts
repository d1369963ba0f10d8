// `npm run bench [-- NAME] [--json]`: runs every registered benchmark (or the
// one named) and prints a table, or one JSON object with --json.
import { cpus, loadavg } from 'node:os';
import { canonicalizeBenchmark } from './canonicalize.js';
import { canonicalizeBytesBenchmark } from './canonicalize-bytes.js';
import { contractsBenchmark } from './contracts.js';
import { distributorBenchmark } from './distributor.js';
import { distributorPeersBenchmark } from './distributor-peers.js';
import { distributorS3Benchmark, distributorS3ManyBenchmark } from './distributor-s3.js';
import { distributorSmallBenchmark } from './distributor-small.js';
import { editionCheckPlanBenchmark, editionNewBenchmark } from './editions.js';
import { evidenceBenchmark } from './evidence.js';
import { type Benchmark, type BenchmarkResult, runBenchmark } from './harness.js';
import { jsonParse } from './json-parse.js';
import { ledgerBenchmark, ledgerWalkBenchmark } from './ledger.js';
import { ledgerCliBenchmark } from './ledger-cli.js';
import { ownerBenchmark } from './owner.js';
import { pagesBenchmark } from './pages.js';
import { scaffoldBenchmark } from './scaffold.js';

/** Every benchmark, in run order. A new benchmark is one file plus one entry here. */
const REGISTRY: readonly Benchmark[] = [
  jsonParse,
  canonicalizeBenchmark,
  canonicalizeBytesBenchmark,
  editionCheckPlanBenchmark,
  editionNewBenchmark,
  distributorBenchmark,
  distributorPeersBenchmark,
  distributorSmallBenchmark,
  distributorS3Benchmark,
  distributorS3ManyBenchmark,
  pagesBenchmark,
  ownerBenchmark,
  evidenceBenchmark,
  scaffoldBenchmark,
  contractsBenchmark,
  ledgerBenchmark,
  ledgerWalkBenchmark,
  ledgerCliBenchmark,
];

function machine(): Readonly<Record<string, string | number>> {
  const cores = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    // Other processes' load skews wall-clock figures; recorded so a reader can judge them.
    loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

function printTable(results: readonly BenchmarkResult[]): void {
  const info = machine();
  process.stdout.write(
    `node ${info.node}, ${info.platform}, ${info.cores} x ${info.cpu}, load average ${info.loadAverage1m} at start\n`,
  );
  for (const result of results) {
    process.stdout.write(`\n${result.name}: ${result.description}\n`);
    process.stdout.write(
      `workload: ${result.workload}; ratio = median over rounds of time / time of "${result.reference}" in the same round\n`,
    );
    const width = Math.max(...result.variants.map((variant) => variant.name.length), 7);
    process.stdout.write(
      `${pad('variant', width)}  ${pad('median ms', 10, true)}  ${pad('min ms', 9, true)}  ${pad('cpu ms', 9, true)}  ${pad('ops/s', 9, true)}  ${pad('ratio', 6, true)}\n`,
    );
    for (const variant of result.variants) {
      process.stdout.write(
        `${pad(variant.name, width)}  ${pad(variant.medianMs.toFixed(3), 10, true)}  ${pad(variant.minMs.toFixed(3), 9, true)}  ${pad(variant.cpuMs.toFixed(3), 9, true)}  ${pad(variant.opsPerSecond.toFixed(1), 9, true)}  ${pad(`${variant.ratio.toFixed(2)}x`, 6, true)}\n`,
      );
    }
    for (const [key, value] of Object.entries(result.notes ?? {})) process.stdout.write(`${key}: ${value}\n`);
  }
}

function main(argv: readonly string[]): number {
  const json = argv.includes('--json');
  const names = argv.filter((arg) => !arg.startsWith('--'));
  const unknownFlags = argv.filter((arg) => arg.startsWith('--') && arg !== '--json');
  const unknownNames = names.filter((name) => !REGISTRY.some((benchmark) => benchmark.name === name));
  if (unknownFlags.length > 0 || unknownNames.length > 0) {
    process.stderr.write(
      `usage: npm run bench [-- NAME...] [--json]\nbenchmarks: ${REGISTRY.map((b) => b.name).join(', ')}\n`,
    );
    return 2;
  }
  const selected =
    names.length === 0 ? REGISTRY : REGISTRY.filter((benchmark) => names.includes(benchmark.name));
  const results: BenchmarkResult[] = [];
  for (const benchmark of selected) {
    if (!json) process.stderr.write(`running ${benchmark.name}...\n`);
    results.push(runBenchmark(benchmark));
  }
  if (json) process.stdout.write(`${JSON.stringify({ machine: machine(), benchmarks: results }, null, 2)}\n`);
  else printTable(results);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
