// SIGINT and SIGTERM end `sealkit distribute run` like a failure, not like
// SIGKILL: no new request, the marker settled (removed when nothing was
// written, expired at once otherwise), exit 130 / 143 with a refusal line,
// and no copy of a bundle left in the temporary directory. A run killed with
// SIGKILL leaves its copy; the next run of the same user removes it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../../test/helpers/cli.js';
import {
  listKeys,
  s3Config,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import { isObjectPut, type S3Proxy } from '../../../../test/helpers/s3-proxy.js';
import { parsePending } from './pending.js';

const ctx = useRgwFixture({ work: 's3-signals-', bucket: 'signals', proxy: true });

let counter = 0;

/** A bundle, a configuration through the proxy, and a TMPDIR of the run's own. */
function setUp() {
  counter += 1;
  const dir = mkdtempSync(join(ctx.work, `case-${counter}-`));
  const temp = join(dir, 'tmp');
  mkdirSync(temp);
  writeBundle(join(dir, 'reports'), 'daily', {
    id: 'daily',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Daily\n', 'summary.txt': 'all clear\n' },
  });
  const prefix = `case-${counter}`;
  const yaml = s3ConfigYaml({ ...ctx.rgw, endpoint: ctx.proxy.endpoint }, join(dir, 'reports'), {
    bucket: ctx.bucket,
    prefix,
  });
  writeFileSync(join(dir, 'sealkit.distributor.yaml'), yaml);
  return { dir, temp, prefix, bundle: `${prefix}/daily` };
}

interface Finished {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
}

function startCli(
  dir: string,
  temp: string,
  args: readonly string[] = [],
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bin', 'sealkit.js'), 'distribute', 'run', ...args],
    {
      cwd: dir,
      env: { ...process.env, ...ctx.rgw.awsEnv, TMPDIR: temp },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const err: Buffer[] = [];
  const out: Buffer[] = [];
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  const finished = new Promise<Finished>((resolve) => {
    child.once('close', (code) =>
      resolve({
        code,
        stderr: Buffer.concat(err).toString('utf8'),
        stdout: Buffer.concat(out).toString('utf8'),
      }),
    );
  });
  return { child, finished };
}

/** Holds the answer to the first request `match` accepts; resolves `seen` when it arrives. */
function holdFirst(match: (req: Parameters<Parameters<S3Proxy['decide']>[0]>[0]) => boolean) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived: () => void = () => {};
  const seen = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let held = false;
  ctx.proxy.decide((req) => {
    if (!held && match(req)) {
      held = true;
      arrived();
      return { kind: 'hold', release: released };
    }
    return { kind: 'forward' };
  });
  return { seen, release };
}

/** Runs the CLI, sends SIGTERM once the first request `match` accepts is held, and lets that answer go after the exit. */
async function terminateWhileHeld(dir: string, temp: string, match: Parameters<typeof holdFirst>[0]) {
  const hold = holdFirst(match);
  const { child, finished } = startCli(dir, temp);
  await hold.seen;
  child.kill('SIGTERM');
  const result = await finished;
  hold.release();
  ctx.proxy.decide(() => ({ kind: 'forward' }));
  return result;
}

/**
 * Runs the CLI until its marker PUT is held, then sends SIGINT once per
 * entry of `pauses`, waiting that many milliseconds after each; the marker's
 * answer goes before the exit (`releaseBeforeExit`) or after it.
 */
async function interruptAtMarker(
  pauses: readonly number[],
  options: { readonly releaseBeforeExit: boolean; readonly args?: readonly string[] },
) {
  const setup = setUp();
  const hold = holdFirst((req) => isObjectPut(req, '/daily/.distributor.pending.json'));
  const { child, finished } = startCli(setup.dir, setup.temp, options.args);
  await hold.seen;
  for (const pause of pauses) {
    child.kill('SIGINT');
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  if (options.releaseBeforeExit) hold.release();
  const result = await finished;
  hold.release();
  ctx.proxy.decide(() => ({ kind: 'forward' }));
  return { ...setup, result };
}

describe('signals stop a run cleanly', () => {
  it('regression: SIGTERM during an output upload exits 143 with run_interrupted; the marker expires at once and no bundle copy is left', async () => {
    const { dir, temp, bundle } = setUp();
    const result = await terminateWhileHeld(dir, temp, (req) => isObjectPut(req, '/daily/report.md'));
    expect(result.code).toBe(143);
    expect(result.stderr).toContain('error[run_interrupted]');
    // A first publication: nothing of it is published.
    expect(result.stderr).toContain('so the version it was writing is not published');
    expect(readdirSync(temp)).toEqual([]);
    const keys = await listKeys(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(keys).not.toContain(`${bundle}/.distributor.json`);
    expect(keys).toContain(`${bundle}/.distributor.pending.json`);
    const marker = await ctx.s3.send(
      new GetObjectCommand({ Bucket: ctx.bucket, Key: `${bundle}/.distributor.pending.json` }),
    );
    const parsed = parsePending(
      await (marker.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
    );
    expect(Date.parse(parsed.expires)).toBeLessThanOrEqual(Date.now());
    // Nothing to wait for: the next run converges at once.
    const rerun = startCli(dir, temp);
    expect((await rerun.finished).code).toBe(0);
    expect((await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).sort()).toEqual(
      ['.distributor.json', 'report.html', 'report.md', 'summary.txt'].map((name) => `${bundle}/${name}`),
    );
  }, 60_000);

  it('regression: a replacement stopped mid-upload says some objects of the version before may already hold new bytes (said "not published")', async () => {
    const { dir, temp, bundle } = setUp();
    const first = startCli(dir, temp);
    expect((await first.finished).code).toBe(0);
    writeBundle(join(dir, 'reports'), 'daily', {
      id: 'daily',
      created: '2026-05-31T11:10:00Z',
      files: { 'report.md': '# Daily\n\nRain.\n', 'summary.txt': 'showers later\n' },
    });
    const result = await terminateWhileHeld(dir, temp, (req) => isObjectPut(req, '/daily/summary.txt'));
    expect(result.code).toBe(143);
    expect(result.stderr).toContain(
      'the run was stopped while it wrote the new version over the one published before: .distributor.json still names the version before, but some of its objects may already hold the new bytes: run again, and the next run finishes the replacement',
    );
    expect(result.stderr).not.toContain('so the version it was writing is not published');
    const rerun = startCli(dir, temp);
    expect((await rerun.finished).code).toBe(0);
    const summary = await ctx.s3.send(
      new GetObjectCommand({ Bucket: ctx.bucket, Key: `${bundle}/summary.txt` }),
    );
    expect(await summary.Body?.transformToString()).toBe('showers later\n');
  }, 60_000);

  it('regression: SIGINT while the store leaves the probe unanswered stops the run at once (exit 130); no bundle object is written', async () => {
    // A store that answers reads and never a write (a full one) held the
    // signal for every attempt of the probe, then said it came after the run.
    const { dir, temp, prefix, bundle } = setUp();
    const hold = holdFirst((req) => isObjectPut(req, '/.distributor.probe-'));
    const { child, finished } = startCli(dir, temp);
    await hold.seen;
    const sent = performance.now();
    child.kill('SIGINT');
    const result = await finished;
    const afterSignal = performance.now() - sent;
    hold.release();
    ctx.proxy.decide(() => ({ kind: 'forward' }));
    expect(result.code).toBe(130);
    // Well below one request timeout (30 s): the signal did not wait for the store.
    expect(afterSignal).toBeLessThan(10_000);
    expect(result.stderr).toContain('error[run_interrupted]');
    expect(result.stderr).not.toContain('came after the run completed');
    expect(readdirSync(temp)).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).toEqual([]);
    // The probe object whose answer was abandoned may stay, beside the bundles, never in one.
    for (const key of await listKeys(ctx.s3, ctx.bucket, `${prefix}/`))
      expect(key).toMatch(new RegExp(`^${prefix}/\\.distributor\\.probe-[0-9a-f]{32}$`));
    const rerun = startCli(dir, temp);
    expect((await rerun.finished).code).toBe(0);
  }, 60_000);

  it('regression: SIGINT while the marker is written exits 130; nothing else was written, so the marker is removed', async () => {
    // Let the signal be handled before the marker's answer arrives.
    const { temp, bundle, result } = await interruptAtMarker([200], { releaseBeforeExit: true });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('error[run_interrupted]');
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).toEqual([]);
    expect(readdirSync(temp)).toEqual([]);
  }, 60_000);

  it('regression: one SIGINT delivered twice at once (as `timeout -s INT` does) stops the run once, cleanly', async () => {
    // Before, the repeat counted as a second request: the process ended at once, silently,
    // leaving the run's copy of its bundles behind. A few milliseconds apart, so the kernel
    // delivers both rather than merging them.
    const { temp, bundle, result } = await interruptAtMarker([5, 200], { releaseBeforeExit: true });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('error[run_interrupted]');
    expect(result.stderr).not.toContain('second');
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).toEqual([]);
    expect(readdirSync(temp)).toEqual([]);
  }, 60_000);

  it('a second SIGINT a moment later ends the process at once and says so, with what the next run does', async () => {
    const { result } = await interruptAtMarker([300, 0], { releaseBeforeExit: false });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe(
      'sealkit: a second SIGINT: stopped at once; bundles committed stay published; the next run removes what this one left (on S3 once its pending markers expire, at most 2 minutes)\n',
    );
  }, 60_000);

  it('regression: a second SIGINT under --json still prints one JSON object on stdout (printed none)', async () => {
    const { result } = await interruptAtMarker([300, 0], { releaseBeforeExit: false, args: ['--json'] });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('sealkit: a second SIGINT: stopped at once;');
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      status: 'refused',
      reason_code: 'run_interrupted',
      category: 'unavailable',
      message:
        'the run was stopped by a signal: no new write was started; a bundle whose state was not written is not published',
      hint: 'a second SIGINT: stopped at once, with no report; bundles committed stay published; the next run removes what this one left (on S3 once its pending markers expire, at most 2 minutes)',
    });
  }, 60_000);

  it('regression: SIGTERM leaves no run directory in a local destination’s work area (where the bundle copy lives)', async () => {
    const { dir, temp, prefix } = setUp();
    for (const name of ['weekly', 'monthly']) {
      writeBundle(join(dir, 'reports'), name, {
        id: name,
        created: '2026-05-30T11:10:00Z',
        files: { 'report.md': `# ${name}\n` },
      });
    }
    mkdirSync(join(dir, 'site'));
    const s3 = s3ConfigYaml({ ...ctx.rgw, endpoint: ctx.proxy.endpoint }, join(dir, 'reports'), {
      bucket: ctx.bucket,
      prefix,
    });
    const local = [
      '      - id: site',
      '        kind: local',
      `        root: ${JSON.stringify(join(dir, 'site'))}`,
      '        outputs: {source: true, html: false}',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'sealkit.distributor.yaml'), `${s3}${local}`);
    const result = await terminateWhileHeld(dir, temp, (req) => isObjectPut(req, '/report.md'));
    expect(result.code).toBe(143);
    expect(result.stderr).toContain('error[run_interrupted]');
    const work = readdirSync(join(dir, 'site', '.distributor.work'));
    expect(work.filter((name) => name.startsWith('run-'))).toEqual([]);
    expect(readdirSync(temp)).toEqual([]);
  }, 60_000);

  it("regression: a SIGKILLed run's bundle copy is removed by the next run of the same user", async () => {
    const { dir, temp, prefix } = setUp();
    const config = s3Config(ctx.rgw, join(dir, 'reports'), { bucket: ctx.bucket, prefix });
    const killed = await new Promise<string | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, 'test/helpers/distribute-s3-child.mjs'),
          JSON.stringify({ config, now: '2026-06-01T12:00:00Z', killAtStep: 1 }),
        ],
        { env: { ...process.env, ...ctx.rgw.awsEnv, TMPDIR: temp }, stdio: 'ignore' },
      );
      child.once('exit', (_code, signal) => resolve(signal));
    });
    expect(killed).toBe('SIGKILL');
    const left = readdirSync(temp);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^sealkit-distributor-/);
    // Someone else's directory with the same kind of name, without a lock, stays.
    mkdirSync(join(temp, 'sealkit-distributor-notours'));
    // Regression: a run that copies nothing (here: an empty source, to a local folder) removes it too;
    // it was left to the next run that made a copy, which a night of skipped bundles never is.
    const other = join(dir, 'other');
    mkdirSync(join(other, 'empty'), { recursive: true });
    mkdirSync(join(other, 'site'));
    writeFileSync(
      join(other, 'sealkit.distributor.yaml'),
      'pipelines:\n  - id: p\n    source: {root: empty}\n    destinations:\n      - {id: site, kind: local, root: site, outputs: {source: true, html: false}}\n',
    );
    const tempEnv = { ...process.env, TMPDIR: temp };
    // A dry run writes nothing, so it removes nothing either.
    expect(runCli(['distribute', 'run', '--dry-run'], { cwd: other, env: tempEnv }).status).toBe(0);
    expect(readdirSync(temp)).toHaveLength(2);
    const nothing = runCli(['distribute', 'run'], { cwd: other, env: tempEnv });
    expect(nothing.status, nothing.stderr.toString()).toBe(0);
    expect(readdirSync(temp)).toEqual(['sealkit-distributor-notours']);
    const { finished } = startCli(dir, temp);
    const result = await finished;
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(temp)).toEqual(['sealkit-distributor-notours']);
  }, 60_000);

  it('regression: SIGTERM while the store has stopped answering ends the run within seconds, not after the retries and timeouts of its marker writes', async () => {
    // The store goes silent at the first output upload: nothing is answered
    // from then on, so expiring the marker after the signal is not answered
    // either. It waited out four attempts of request_timeout_seconds (30 s)
    // and more: a run stopped by cron's timeout or systemd went on for
    // minutes. The marker's writes now get a few seconds after the signal.
    const { dir, temp, bundle } = setUp();
    let silent = false;
    let arrived: () => void = () => {};
    const seen = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release: () => void = () => {};
    const never = new Promise<void>((resolve) => {
      release = resolve;
    });
    ctx.proxy.decide((req) => {
      if (!silent && isObjectPut(req, '/daily/report.md')) {
        silent = true;
        arrived();
      }
      return silent ? { kind: 'hold', release: never } : { kind: 'forward' };
    });
    const { child, finished } = startCli(dir, temp);
    await seen;
    const sent = performance.now();
    child.kill('SIGTERM');
    // Never left behind: before the change it ran for minutes.
    const guard = setTimeout(() => child.kill('SIGKILL'), 40_000);
    const result = await finished;
    const afterSignal = performance.now() - sent;
    clearTimeout(guard);
    release();
    ctx.proxy.decide(() => ({ kind: 'forward' }));
    expect(result.code, result.stderr).toBe(143);
    expect(afterSignal).toBeLessThan(15_000);
    expect(result.stderr).toContain('error[run_interrupted]');
    // Nothing is published; the marker the store took stays until its lease ends.
    const keys = await listKeys(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(keys).not.toContain(`${bundle}/.distributor.json`);
  }, 60_000);
});
