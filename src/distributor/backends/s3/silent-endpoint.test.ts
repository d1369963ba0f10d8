// An S3 endpoint that accepts connections and never answers (a hung
// gateway, a full store, a firewall that lets the handshake through): each
// request waits `request_timeout_seconds`, three attempts, about 96 s in
// all. SIGINT and SIGTERM were held for all of it although the run had
// written nothing, and a terminal showed nothing at all meanwhile.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import { writeBundle } from '../../../../test/helpers/distributor-s3.js';

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');

let work: string;
let server: Server;
let endpoint: string;
const sockets: Socket[] = [];
/** Resolved by the first request bytes the server receives after `expectRequest`. */
let requested: () => void = () => {};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-silent-endpoint-'));
  writeBundle(join(work, 'src'), 'weather', {
    id: 'weather',
    created: '2026-05-30T11:10:00Z',
    files: { 'summary.txt': 'sunny\n' },
  });
  // Reads every request and never answers: the socket stays open and silent.
  server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', () => requested());
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  endpoint = `http://127.0.0.1:${address.port}`;
  writeFileSync(
    join(work, 'sealkit.distributor.yaml'),
    [
      'pipelines:',
      '  - id: weather',
      '    source: { root: ./src }',
      '    destinations:',
      '      - id: archive',
      '        kind: s3',
      '        bucket: reports',
      '        prefix: weather',
      `        endpoint: ${endpoint}`,
      '        region: us-east-1',
      '        force_path_style: true',
      '        outputs: { source: true, html: false }',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

const env = {
  ...process.env,
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLESEALKIT',
  AWS_SECRET_ACCESS_KEY: 'not-a-real-secret',
  NO_COLOR: '1',
};

function expectRequest(): Promise<void> {
  return new Promise((resolve) => {
    requested = resolve;
  });
}

interface Ended {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Milliseconds from the signal to the exit. */
  readonly afterSignal: number;
}

/** Runs `sealkit distribute run` with `args` and sends it `signal` once its first request is in. */
async function stopRun(args: readonly string[], signal: NodeJS.Signals): Promise<Ended> {
  const asked = expectRequest();
  const child = spawn(process.execPath, [BIN, 'distribute', 'run', ...args], {
    cwd: work,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await asked;
  const sent = performance.now();
  child.kill(signal);
  // Never left behind, whatever happens: the store would hold it for 96 s.
  const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const code = await exited;
  clearTimeout(guard);
  return {
    code,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    afterSignal: performance.now() - sent,
  };
}

/** Well below one request timeout (30 s): the signal did not wait for the store. */
const PROMPTLY_MS = 10_000;

describe('an S3 endpoint that accepts connections and never answers', () => {
  it('regression: SIGINT while the destinations are inspected stops the run at once, before any write (exit 130)', async () => {
    const run = await stopRun([], 'SIGINT');
    expect(run.code).toBe(130);
    expect(run.afterSignal).toBeLessThan(PROMPTLY_MS);
    expect(run.stderr).toBe(
      [
        'error[run_interrupted]: the run was stopped by a signal: no new write was started; a bundle whose state was not written is not published',
        '  = help: stopped before any write: nothing was published, and the next run starts afresh',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toBe('');
  }, 30_000);

  it('regression: SIGTERM stops a dry run there too (exit 143), with the refusal as the one --json object', async () => {
    const run = await stopRun(['--dry-run', '--json'], 'SIGTERM');
    expect(run.code).toBe(143);
    expect(run.afterSignal).toBeLessThan(PROMPTLY_MS);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'refused', reason_code: 'run_interrupted' });
    expect(run.stderr).toBe('');
  }, 30_000);

  it('regression: on a terminal the run says which destination it is waiting for, and Ctrl-C stops it, said heard at once (nothing acknowledged the signal)', async () => {
    // `script` gives the CLI a real terminal; ^C typed into it is SIGINT from the terminal's line discipline.
    const asked = expectRequest();
    const command = [process.execPath, BIN, 'distribute', 'run'].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
      cwd: work,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let shown = '';
    let typed = false;
    const waiting = 'sealkit distribute: inspect 0/1, waiting 2 s for destination archive';
    child.stdout?.on('data', (chunk: Buffer) => {
      shown += chunk.toString('utf8');
      if (!typed && shown.includes(waiting)) {
        typed = true;
        child.stdin?.write('\u0003');
      }
    });
    // Never left behind, whatever happens: the store would hold it for 96 s.
    const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await new Promise<number | null>((resolve) =>
      child.once('exit', (status) => resolve(status)),
    );
    clearTimeout(guard);
    await asked;
    expect(shown).toContain('\r\u001b[2Ksealkit distribute: inspect 0/1, destination archive\r');
    expect(shown).toContain(waiting);
    // The note ends the progress line, and no count is drawn after it.
    const note =
      '\r\nsealkit distribute: SIGINT: stopping once the step under way ends (the bundle being read and hashed, the writes in flight)\r\n';
    expect(shown).toContain(note);
    expect(shown.slice(shown.indexOf(note) + note.length)).not.toContain('sealkit distribute: inspect');
    expect(shown).toContain(
      'error[run_interrupted]: the run was stopped by a signal: no new write was started; a bundle whose state was not written is not published\r\n  = help: stopped before any write: nothing was published, and the next run starts afresh',
    );
    expect(code).toBe(130);
  }, 30_000);
});
