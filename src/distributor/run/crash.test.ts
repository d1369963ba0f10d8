import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/prng.js';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import {
  describeTree,
  makeBundle,
  privateBuild,
  writeConfig,
} from '../../../test/helpers/distributor-fixtures.js';
import type { Step } from '../backend.js';
import { distributeRun } from './run.js';

/**
 * Crash behaviour. The scenario touches every kind of write: a first publish
 * (rename without replace, parents created), a replacement (exchange, then
 * narrow deletion of the old tree), a skip, an unmanaged path that must be
 * left alone, two destinations (one receives moved snapshot files, the other
 * copies), Markdown pages. After a failure injected at any single step, or a
 * SIGKILL at a random step or a random moment:
 * - every bundle path holds either its state before the run or its state
 *   after an uninterrupted run, whole (never a mix, never partial);
 * - files that are not sealkit's are untouched;
 * - one more run converges to exactly the tree an uninterrupted run leaves.
 */
const T0 = () => new Date('2026-06-01T00:00:00Z');
const T1 = () => new Date('2026-06-02T00:00:00Z');
const BIG = Buffer.alloc(2 * 1024 * 1024, 0x61);

let base: string;
let build: string;
let counter = 0;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sealkit-crash-'));
  build = privateBuild(REPO_ROOT, base);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Scenario {
  readonly dir: string;
  readonly config: string;
  readonly roots: readonly string[];
}

/** The destinations as they are before the run under test: one older publication, user files, an unmanaged path. */
async function scenario(): Promise<Scenario> {
  counter += 1;
  const dir = join(base, `s${counter}`);
  const source = join(dir, 'src');
  const site = join(dir, 'site');
  const archive = join(dir, 'archive');
  for (const path of [source, site, archive]) mkdirSync(path, { recursive: true });
  const config = writeConfig(dir, [
    {
      id: 'reports',
      source,
      destinations: [
        { id: 'site', root: site, source: true, html: true },
        { id: 'archive', root: archive, source: true, html: false },
      ],
    },
  ]);
  makeBundle(
    source,
    'daily/replaced',
    [
      { path: 'old.md', content: '# Old\n' },
      { path: 'x/gone.txt', content: 'g' },
    ],
    {
      id: 'replaced',
      created: '2026-05-01T00:00:00Z',
    },
  );
  makeBundle(source, 'daily/kept', [{ path: 'k.txt', content: 'k' }], {
    id: 'kept',
    created: '2026-05-01T00:00:00Z',
  });
  const first = await distributeRun({ configPath: config, now: T0 });
  expect(first.status).toBe('ok');
  rmSync(join(source, 'daily', 'replaced'), { recursive: true });
  makeBundle(
    source,
    'daily/replaced',
    [
      { path: 'new.md', content: '# New\n\nText.\n' },
      { path: 'x/still.txt', content: 's' },
    ],
    { id: 'replaced', created: '2026-05-02T00:00:00Z' },
  );
  makeBundle(
    source,
    'weekly/fresh',
    [
      { path: 'report.md', content: '# Fresh\n' },
      { path: 'data/big.bin', content: BIG },
    ],
    { id: 'fresh', created: '2026-05-02T00:00:00Z' },
  );
  makeBundle(source, 'other/unmanaged', [{ path: 'u.txt', content: 'u' }], {
    id: 'u',
    created: '2026-05-02T00:00:00Z',
  });
  for (const root of [site, archive]) {
    mkdirSync(join(root, 'other', 'unmanaged'), { recursive: true });
    writeFileSync(join(root, 'other', 'unmanaged', 'user.txt'), 'user data');
    writeFileSync(join(root, 'README.txt'), 'user data');
  }
  return { dir, config, roots: [site, archive] };
}

const BUNDLES = ['daily/replaced', 'daily/kept', 'weekly/fresh', 'other/unmanaged'];

function subtree(tree: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tree).filter(([path]) => path === prefix || path.startsWith(`${prefix}/`)),
  );
}

type Tree = Record<string, string>;
let reference: {
  before: Tree[];
  after: Tree[];
  beforeLoose: Tree[];
  afterLoose: Tree[];
  steps: number;
  /** Every step of the uninterrupted run, in order. */
  kinds: Step[];
};
const loose = (root: string): Tree => describeTree(root, { ignorePublishedAt: true });

beforeAll(async () => {
  const s = await scenario();
  const before = s.roots.map((root) => describeTree(root));
  const beforeLoose = s.roots.map(loose);
  let steps = 0;
  const kinds: Step[] = [];
  const report = await distributeRun({
    configPath: s.config,
    now: T1,
    beforeStep: (step) => {
      steps += 1;
      kinds.push(step);
    },
  });
  expect(
    report.outcomes.map((o) => [o.destination_id, o.bundle_dir, o.outcome, o.reason_code ?? '']),
  ).toEqual([
    ['site', 'daily/kept', 'skipped_same', ''],
    ['archive', 'daily/kept', 'skipped_same', ''],
    ['site', 'daily/replaced', 'replaced', ''],
    ['archive', 'daily/replaced', 'replaced', ''],
    ['site', 'other/unmanaged', 'refused', 'destination_unmanaged'],
    ['archive', 'other/unmanaged', 'refused', 'destination_unmanaged'],
    ['site', 'weekly/fresh', 'published', ''],
    ['archive', 'weekly/fresh', 'published', ''],
  ]);
  reference = {
    before,
    after: s.roots.map((root) => describeTree(root)),
    beforeLoose,
    afterLoose: s.roots.map(loose),
    steps,
    kinds,
  };
}, 120_000);

/** The three crash guarantees, checked on the destinations left by an interrupted run. */
async function expectRecoverable(
  s: Scenario,
  label: string,
  clock: 'pinned' | 'real' = 'pinned',
): Promise<void> {
  const describe = clock === 'pinned' ? (root: string) => describeTree(root) : loose;
  const expectedBefore = clock === 'pinned' ? reference.before : reference.beforeLoose;
  const expectedAfter = clock === 'pinned' ? reference.after : reference.afterLoose;
  const interrupted = s.roots.map(describe);
  for (const [index, tree] of interrupted.entries()) {
    for (const bundle of BUNDLES) {
      const now = subtree(tree, bundle);
      const before = subtree(expectedBefore[index] ?? {}, bundle);
      const after = subtree(expectedAfter[index] ?? {}, bundle);
      const whole =
        JSON.stringify(now) === JSON.stringify(before) || JSON.stringify(now) === JSON.stringify(after);
      expect({ label, root: index, bundle, whole }).toEqual({ label, root: index, bundle, whole: true });
    }
    expect({ label, readme: tree['README.txt'] }).toEqual({
      label,
      readme: reference.before[index]?.['README.txt'],
    });
  }
  const rerun = await distributeRun({ configPath: s.config, now: T1 });
  expect({ label, aborted: rerun.aborted }).toEqual({ label, aborted: false });
  expect({ label, trees: s.roots.map(describe) }).toEqual({ label, trees: expectedAfter });
}

describe('crash safety', () => {
  it('survives a failure injected at every single write, rename and delete', async () => {
    expect(reference.steps).toBeGreaterThan(40);
    for (let failAt = 0; failAt < reference.steps; failAt += 1) {
      const s = await scenario();
      let seen = 0;
      const inject = (step: Step): void => {
        seen += 1;
        if (seen === failAt + 1) throw new Error(`injected failure at ${step.kind}`);
      };
      const descriptorsBefore = openDescriptors();
      const report = await distributeRun({ configPath: s.config, now: T1, beforeStep: inject });
      // A failed run closes every directory and file it opened (a leaked
      // handle would pin deleted directories for the life of the process).
      expect({ failAt, descriptors: openDescriptors() }).toEqual({ failAt, descriptors: descriptorsBefore });
      expect(report.outcomes).toHaveLength(8);
      expect({ failAt, injected: seen > failAt }).toEqual({ failAt, injected: true });
      await expectRecoverable(s, `failure at step ${failAt}`);
      rmSync(s.dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('survives SIGKILL at each point of a group commit: around the batch flush, between commits, between parent flushes', async () => {
    const points = groupCommitPoints(reference.kinds);
    // Both destinations commit a batch of two bundles (an exchange and a rename), into two parents.
    expect(points.map((point) => point.label)).toEqual(
      ['archive', 'site'].flatMap((destination) =>
        [
          'before the batch flush',
          'after the batch flush, before the first commit',
          'between the two commit renames',
          'before the second commit rename',
          'before the first parent flush',
          'between the two parent flushes',
        ].map((label) => `${destination}: ${label}`),
      ),
    );
    for (const point of points) {
      const s = await scenario();
      killAtStep(s, point.at);
      await expectRecoverable(s, `SIGKILL ${point.label} (step ${point.at})`);
      rmSync(s.dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('survives SIGKILL at 50 random steps and 10 random moments', async () => {
    const random = seededRandom(0x5ea1c17);
    for (let round = 0; round < 50; round += 1) {
      const s = await scenario();
      const killAt = Math.floor(random() * reference.steps);
      killAtStep(s, killAt, round);
      await expectRecoverable(s, `SIGKILL at step ${killAt}`);
      rmSync(s.dir, { recursive: true, force: true });
    }
    for (let round = 0; round < 10; round += 1) {
      const s = await scenario();
      const child = spawn(process.execPath, [
        join(build, 'bin', 'sealkit.js'),
        'distribute',
        'run',
        '--config',
        s.config,
      ]);
      // Listened for at spawn: a run that ends before the kill has already
      // emitted 'exit', and a listener added after it would wait forever.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(random() * 400)));
      child.kill('SIGKILL');
      await exited;
      await expectRecoverable(s, `SIGKILL at a random moment (round ${round})`, 'real');
      rmSync(s.dir, { recursive: true, force: true });
    }
  }, 900_000);
});

/** Runs the scenario in a child process that SIGKILLs itself just before step `killAt` (0-based). */
function killAtStep(s: Scenario, killAt: number, round = 0): void {
  const distributor = join(build, 'dist', 'src', 'distributor', 'index.js');
  const child = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { distributeRun } = await import(${JSON.stringify(distributor)});
       let seen = 0;
       await distributeRun({ configPath: process.argv[1], now: () => new Date('2026-06-02T00:00:00Z'),
         beforeStep: () => { if (seen++ === Number(process.argv[2])) process.kill(process.pid, 'SIGKILL'); } });`,
      s.config,
      String(killAt),
    ],
    { encoding: 'utf8' },
  );
  expect({ round, killAt, signal: child.signal, stderr: child.stderr }).toEqual({
    round,
    killAt,
    signal: 'SIGKILL',
    stderr: '',
  });
}

/**
 * The steps of a group commit where a crash matters, per destination, as
 * indexes into the uninterrupted run's steps: the batch flush, the step
 * after it, the steps after the first commit and before the second, and the
 * two parent-directory flushes that follow the last commit.
 */
function groupCommitPoints(kinds: readonly Step[]): { readonly label: string; readonly at: number }[] {
  const points: { label: string; at: number }[] = [];
  for (const destination of ['archive', 'site']) {
    const own = kinds
      .map((step, at) => ({ ...step, at }))
      .filter((step) => step.destination_id === destination);
    const flush = own.find((step) => step.kind === 'flush');
    if (flush === undefined) continue;
    const afterFlush = own.filter((step) => step.at > flush.at);
    const firstCommit = afterFlush.find((step) => step.kind === 'exchange' || step.kind === 'rename');
    const parentFlushes = own.filter((step) => step.at > flush.at && step.kind === 'fsync').slice(-2);
    const secondCommit = afterFlush
      .filter((step) => step.kind === 'rename' || step.kind === 'exchange')
      .at(-1);
    if (firstCommit === undefined || secondCommit === undefined || parentFlushes.length < 2) continue;
    const [firstParent, secondParent] = parentFlushes;
    points.push(
      { label: `${destination}: before the batch flush`, at: flush.at },
      { label: `${destination}: after the batch flush, before the first commit`, at: flush.at + 1 },
      { label: `${destination}: between the two commit renames`, at: firstCommit.at + 1 },
      { label: `${destination}: before the second commit rename`, at: secondCommit.at },
      { label: `${destination}: before the first parent flush`, at: firstParent?.at ?? -1 },
      { label: `${destination}: between the two parent flushes`, at: secondParent?.at ?? -1 },
    );
  }
  return points;
}

/** The descriptors this process holds, as `fd -> target` (readlink of /proc/self/fd). */
function openDescriptors(): Record<string, string> {
  const held: Record<string, string> = {};
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      held[fd] = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return held;
}
