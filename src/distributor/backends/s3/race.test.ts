// Conditional-write races on a real radosgw: 20 processes plan the same
// bundle, wait at a gate until all of them have planned, then write at once.
// Exactly one may win; the others are refused before they overwrite anything
// the winner wrote.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import {
  type BundleSpec,
  readPrefix,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import { parseState } from '../../model/state.js';

const ctx = useRgwFixture({ work: 's3-race-', bucket: 'race' });

const NOW = '2026-06-01T12:00:00Z';
const RUNS = 20;

/** One S3 destination at `prefix` of the test bucket, publishing `source`. */
const configAt = (source: string, prefix: string) =>
  s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix });

interface ChildResult {
  readonly outcomes: readonly { readonly outcome: string; readonly reason_code?: string }[];
}

/** Starts `count` runs that stop at a gate before their first S3 write; opens the gate once all are there. */
async function raceRuns(count: number, options: Record<string, unknown>): Promise<ChildResult[]> {
  const gate = join(ctx.work, `gate-${Math.random().toString(16).slice(2)}`);
  let ready = 0;
  let openGate: () => void = () => {};
  const allReady = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  const runs = Array.from({ length: count }, () => {
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'test/helpers/distribute-s3-child.mjs'), JSON.stringify({ ...options, gate })],
      { env: { ...process.env, ...ctx.rgw.awsEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    let counted = false;
    const countReady = () => {
      if (counted) return;
      counted = true;
      ready += 1;
      if (ready === count) openGate();
    };
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (chunk.toString('utf8').includes('ready')) countReady();
    });
    return new Promise<ChildResult>((resolve, reject) => {
      child.once('exit', (code) => {
        // A run that never reached the gate must not hold the others back.
        countReady();
        if (code !== 0)
          reject(new Error(`child exited ${code}: ${Buffer.concat(err).toString('utf8').slice(-2000)}`));
        else resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as ChildResult);
      });
    });
  });
  await allReady;
  writeFileSync(gate, '');
  try {
    return await Promise.all(runs);
  } finally {
    if (existsSync(gate)) rmSync(gate);
  }
}

describe('S3 destination: 20 concurrent runs on one bundle', () => {
  it('exactly one publishes; the other 19 are refused and the prefix holds exactly one publication', async () => {
    const source = mkdtempSync(join(ctx.work, 'src-'));
    const spec: BundleSpec = {
      id: 'weather.daily.brentwood',
      created: '2026-05-30T11:10:00Z',
      files: { 'report.md': '# Brentwood\n\nSunny.\n', 'summary.txt': 'all clear\n' },
    };
    writeBundle(source, 'daily/brentwood', spec);
    const prefix = 'race-publish';
    const results = await raceRuns(RUNS, { config: configAt(source, prefix), now: NOW });
    const outcomes = results.map((result) => result.outcomes[0]);
    expect(outcomes.filter((o) => o?.outcome === 'published')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o?.outcome !== 'published')) {
      expect(outcome?.outcome).toBe('refused');
      expect(['destination_changed', 'destination_locked']).toContain(outcome?.reason_code);
    }
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...stored.keys()].sort()).toEqual(
      ['.distributor.json', 'report.html', 'report.md', 'summary.txt'].map(
        (name) => `${prefix}/daily/brentwood/${name}`,
      ),
    );
    const state = parseState(
      stored.get(`${prefix}/daily/brentwood/.distributor.json`)?.bytes ?? Buffer.alloc(0),
    );
    for (const output of state.outputs) {
      expect(`sha256:${stored.get(`${prefix}/daily/brentwood/${output.path}`)?.sha256}`).toBe(output.sha256);
    }
  });

  it('exactly one of 20 replacements planned from the same state wins', async () => {
    const prefix = 'race-replace';
    const old = mkdtempSync(join(ctx.work, 'old-'));
    writeBundle(old, 'daily/brentwood', {
      id: 'weather.daily.brentwood',
      created: '2026-05-30T11:10:00Z',
      files: { 'report.md': '# Old\n', 'old.txt': 'old\n' },
    });
    const first = await raceRuns(1, { config: configAt(old, prefix), now: NOW });
    expect(first[0]?.outcomes[0]?.outcome).toBe('published');

    const fresh = mkdtempSync(join(ctx.work, 'new-'));
    writeBundle(fresh, 'daily/brentwood', {
      id: 'weather.daily.brentwood',
      created: '2026-05-30T12:10:00Z',
      files: { 'report.md': '# New\n', 'new.txt': 'new\n' },
    });
    const results = await raceRuns(RUNS, { config: configAt(fresh, prefix), now: NOW });
    const outcomes = results.map((result) => result.outcomes[0]);
    expect(outcomes.filter((o) => o?.outcome === 'replaced')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o?.outcome !== 'replaced')) {
      expect(['destination_changed', 'destination_locked']).toContain(outcome?.reason_code);
    }
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...stored.keys()].sort()).toEqual(
      ['.distributor.json', 'new.txt', 'report.html', 'report.md'].map(
        (name) => `${prefix}/daily/brentwood/${name}`,
      ),
    );
    expect(stored.get(`${prefix}/daily/brentwood/report.md`)?.bytes.toString('utf8')).toBe('# New\n');
  });
});
