import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runNode } from './children.js';
import {
  type ChildReport,
  config,
  median,
  type Series,
  series,
  syncFilesystem,
  timed,
} from './distributor.js';
import type { Variant } from './harness.js';

/**
 * What the peer benchmarks share: the tools a user would pick instead of
 * sealkit, found or reported missing, run to their end, and sealkit's time
 * divided by theirs round by round.
 */
export interface Peer {
  readonly command: string;
  readonly probe: readonly string[];
}

export const PEERS: Readonly<Record<'rclone' | 'rsync' | 'cp' | 'sync' | 'openssl' | 'xargs', Peer>> = {
  rclone: { command: 'rclone', probe: ['version'] },
  rsync: { command: 'rsync', probe: ['--version'] },
  cp: { command: 'cp', probe: ['--version'] },
  sync: { command: 'sync', probe: ['--version'] },
  openssl: { command: 'openssl', probe: ['version'] },
  xargs: { command: 'xargs', probe: ['--version'] },
};

export type PeerName = keyof typeof PEERS;

/** Which peers this machine has; those it lacks are named on stderr under `benchmark`. */
export function presentPeers(benchmark: string): {
  readonly present: Readonly<Record<PeerName, boolean>>;
  readonly missing: readonly string[];
} {
  const present = Object.fromEntries(
    Object.entries(PEERS).map(([key, peer]) => [key, installed(peer)]),
  ) as Record<PeerName, boolean>;
  const missing = Object.entries(present)
    .filter(([, ok]) => !ok)
    .map(([key]) => key);
  if (missing.length > 0)
    process.stderr.write(`${benchmark}: not installed, reported as missing: ${missing.join(', ')}\n`);
  return { present, missing };
}

function installed(peer: Peer): boolean {
  const result = spawnSync(peer.command, peer.probe, { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** rclone reads no configuration file of the user's: local paths only, defaults as installed. */
const RCLONE_ENV = { ...process.env, RCLONE_CONFIG: '/dev/null' };

/** Runs a peer to its end; a failure throws with its stderr. */
export function runPeer(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: command === 'rclone' ? RCLONE_ENV : process.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
}

/** A destination emptied and its filesystem flushed before each round (untimed), then `copy` timed into it. */
export function freshDestination(
  name: string,
  parent: string,
  into: Series,
  copy: (dest: string) => ChildReport | undefined,
): Variant {
  let round = 0;
  let dest = '';
  return {
    name,
    setup: () => {
      if (dest !== '') rmSync(dest, { recursive: true, force: true });
      round += 1;
      dest = join(parent, `${name.replace(/[^a-z0-9]+/gi, '-')}-${round}`);
      mkdirSync(dest);
      syncFilesystem(parent);
    },
    run: timed(into, () => copy(dest)),
  };
}

/** The rounds after the warm-up ones. */
export function measuredRounds(values: readonly number[], warmupRuns: number): readonly number[] {
  return values.slice(warmupRuns);
}

/** Two series added round by round (wall time only): one job after the other. */
export function summed(first: Series, second: Series | undefined): Series {
  const added = series();
  if (second === undefined) return added;
  first.wallMs.forEach((value, index) => {
    added.wallMs.push(value + (second.wallMs[index] ?? Number.NaN));
  });
  return added;
}

/** "r1 / r2 / r3 (median m)": sealkit ÷ peer in each measured round. */
export function pairedRatios(ours: Series, peer: Series | undefined, warmupRuns: number): string {
  if (peer === undefined) return 'missing (peer not installed)';
  const theirs = measuredRounds(peer.wallMs, warmupRuns);
  const ratios = measuredRounds(ours.wallMs, warmupRuns).map(
    (value, index) => value / (theirs[index] ?? Number.NaN),
  );
  return `${ratios.map((r) => r.toFixed(2)).join(' / ')} (median ${median(ratios).toFixed(2)})`;
}

/** One sealkit run in a child process of its own (its peak RSS and CPU are its own). */
export function runSealkit(
  child: string,
  configPath: string,
  mode: 'run' | 'run-checksum' = 'run',
): ChildReport {
  return JSON.parse(runNode([child, mode, configPath], 'sealkit benchmark child')) as ChildReport;
}

/** What the no-op reruns and sealkit's start run over, made untimed before the rounds. */
export interface RerunCopies {
  /** The configuration of sealkit's rerun, over a copy sealkit published itself. */
  readonly noopConfig: string;
  /** rclone's and rsync's own copies (made only when the peer is present). */
  readonly noopRclone: string;
  readonly noopRsync: string;
  /** A run over a source with no bundle: sealkit's start. */
  readonly startConfig: string;
}

/**
 * The copies each tool's no-op rerun starts from, each made by that tool
 * itself (`publish` for sealkit's), and the configuration of a run over an
 * empty source; the filesystem flushed after.
 */
export function makeRerunCopies(
  base: string,
  source: string,
  present: Readonly<Record<PeerName, boolean>>,
  publish: (dest: string) => unknown,
): RerunCopies {
  const noopSealkit = join(base, 'noop-sealkit');
  mkdirSync(noopSealkit);
  const noopConfig = config(base, source, noopSealkit);
  publish(noopSealkit);
  const noopRclone = join(base, 'noop-rclone');
  if (present.rclone) runPeer('rclone', ['copy', '--checksum', source, noopRclone]);
  const noopRsync = join(base, 'noop-rsync');
  if (present.rsync) runPeer('rsync', ['-a', `${source}/`, `${noopRsync}/`]);
  const emptySource = join(base, 'empty-source');
  const emptyDest = join(base, 'empty-dest');
  mkdirSync(emptySource);
  mkdirSync(emptyDest);
  const startConfig = config(base, emptySource, emptyDest);
  syncFilesystem(base);
  return { noopConfig, noopRclone, noopRsync, startConfig };
}
