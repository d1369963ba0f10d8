import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode } from './children.js';
import type { Benchmark, Variant } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');
const child = join(here, 'ledger-cli-child.js');
const bin = join(repoRoot, 'bin', 'sealkit.js');
const EXAMPLE = join(repoRoot, 'examples', 'contracts', 'retail');

type Way = 'before' | 'now';
interface Figures {
  readonly maxRssMb: number;
  readonly cpuMs: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

/**
 * `sealkit contract publish` of the retail example (6 resources) to the
 * embedded ledger, as a user runs it: a process of its own per publication,
 * the first one (no `.sealkit/`, the ledger is created) and a later one (the
 * ledger exists, nothing changes). `now` is the CLI; `before` publishes the
 * same way the CLI did before a new ledger started from the shipped template
 * (initdb, PGlite's settings, V8's optimizing tier). Peak RSS and CPU are the
 * child process's own (`process.resourceUsage`); `bin/sealkit.js` is also run
 * directly, so the wrapper's cost shows.
 */
export const ledgerCliBenchmark: Benchmark = {
  name: 'ledger-cli',
  description:
    'sealkit contract publish to the embedded ledger: first (ledger created) and later publications',
  runOptions: { warmupRuns: 1, rounds: 5, minSampleMs: 0 },
  prepare() {
    const base = mkdtempSync(join(tmpdir(), 'sealkit-bench-ledger-cli-'));
    const figures = new Map<string, Figures[]>();
    let counter = 0;
    const project = (): string => {
      counter += 1;
      const dir = join(base, `retail-${counter}`);
      cpSync(EXAMPLE, dir, { recursive: true });
      return dir;
    };
    const publish = (name: string, way: Way, dir: string): unknown => {
      const result = spawnSync(process.execPath, [child, way, dir], { encoding: 'utf8' });
      const parsed = JSON.parse(result.stdout.trim() || '{}') as Figures & { exit?: number };
      if (result.status !== 0 || parsed.exit !== 0)
        throw new Error(`publication failed (${name}): ${result.stdout} ${result.stderr}`);
      figures.set(name, [...(figures.get(name) ?? []), parsed]);
      return parsed;
    };
    const direct = (dir: string): unknown =>
      runNode([bin, 'contract', 'publish', dir, '-q'], 'bin/sealkit.js');
    // Ledgers for the later publications, made once (untimed) the way each variant makes them.
    const existing = { before: project(), now: project(), bin: project() };
    publish('setup', 'before', existing.before);
    publish('setup', 'now', existing.now);
    direct(existing.bin);
    let fresh = '';
    const first = (name: string, run: (dir: string) => unknown): Variant => ({
      name,
      setup: () => {
        if (fresh !== '') rmSync(fresh, { recursive: true, force: true });
        fresh = project();
      },
      run: () => run(fresh),
    });
    const variants: Variant[] = [
      first('first publish, before', (dir) => publish('first publish, before', 'before', dir)),
      first('first publish, now', (dir) => publish('first publish, now', 'now', dir)),
      first('first publish, now (bin/sealkit.js)', direct),
      {
        name: 'later publish, before',
        run: () => publish('later publish, before', 'before', existing.before),
      },
      { name: 'later publish, now', run: () => publish('later publish, now', 'now', existing.now) },
      { name: 'later publish, now (bin/sealkit.js)', run: () => direct(existing.bin) },
    ];
    return {
      workload: 'the retail example, 6 resources; one process per publication',
      reference: 'first publish, before',
      variants,
      notes: () =>
        Object.fromEntries(
          [...figures]
            .filter(([name]) => name !== 'setup')
            .map(([name, list]) => [
              `${name}: median peak RSS MB / child CPU ms`,
              `${median(list.map((f) => f.maxRssMb)).toFixed(0)} / ${median(list.map((f) => f.cpuMs)).toFixed(0)}`,
            ]),
        ),
      dispose: () => rmSync(base, { recursive: true, force: true }),
    };
  },
};
