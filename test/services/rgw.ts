// A real S3 implementation for tests: a single-node Ceph cluster (one monitor,
// one in-memory OSD) and the RADOS Gateway, started on 127.0.0.1 on free ports
// in a fresh directory under TMPDIR, entirely as the calling (unprivileged)
// user. Every path a daemon would otherwise take from /etc, /var or /run is
// configured into that directory. Nothing is ever reused: each start makes a
// new cluster id, new data directories and new keys.
//
// Daemons run in the foreground (`-f`), each in its own process group, and are
// started through `setpriv --pdeathsig SIGKILL` so that they die with the test
// worker even when it is killed before `stop()` runs.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { RGW_REQUIREMENTS, requireInstalled } from './installed.js';

export interface RgwService {
  /** `http://127.0.0.1:PORT` */
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /**
   * Environment for code under test: the AWS SDK's standard chain finds the
   * keys here (never in a sealkit config file); shared config files and the
   * instance metadata service are switched off so the chain cannot find
   * anything else.
   */
  readonly awsEnv: Readonly<Record<string, string>>;
  /** Milliseconds from the first command to a gateway that answers and has a user. */
  readonly startupMs: number;
  /** The cluster's private directory (removed by `stop()`). */
  readonly dataDir: string;
  /** Process ids of the three daemons (monitor, OSD, gateway). */
  daemonPids(): readonly number[];
  /** For a `detached` cluster: what another process needs to use and stop it. */
  detachedHandle(): DetachedRgw;
  /** A client for test assertions (path-style, the test keys). */
  client(): S3Client;
  /** Creates a fresh bucket with a unique name and returns the name. */
  createBucket(prefix?: string): Promise<string>;
  /**
   * Runs `radosgw-admin` on this cluster (e.g. to set a bucket quota, so a
   * test sees the store refuse a write); resolves with its stdout.
   */
  admin(args: readonly string[]): Promise<string>;
  /** Kills every daemon's process group, waits for them, removes the directory. */
  stop(): Promise<void>;
}

export interface RgwOptions {
  /** Overall bound for start-up (default 90 s). */
  readonly timeoutMs?: number;
  /**
   * Daemons outlive the starting process (no parent-death signal), for a
   * benchmark that starts the cluster from a short-lived helper process and
   * stops it later with `stopDetachedRgw`. Tests leave this off.
   */
  readonly detached?: boolean;
  /** Capacity of the in-memory OSD (default 1 GiB). */
  readonly memstoreBytes?: number;
  /** Where the cluster's fresh directory is made (default TMPDIR). */
  readonly parentDir?: string;
}

/** What a detached cluster needs to be found and stopped by another process. */
export interface DetachedRgw {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly startupMs: number;
  readonly dataDir: string;
  readonly pids: readonly number[];
}

const REGION = 'us-east-1';
/**
 * Twelve restarts, spaced as below, wait up to 39 s for the monitor's map
 * (within the 90 s start-up deadline): six (10.5 s) all met "wrong fsid"
 * on a host twice as slow as the earlier ones, while the suite's other
 * files loaded both cores.
 */
const MAX_OSD_RESTARTS = 12;
/** The wait before the OSD's n-th restart is n times this: restarts at once all met the same early map. */
const OSD_RESTART_BACKOFF_MS = 500;

export async function startRgw(options: RgwOptions = {}): Promise<RgwService> {
  requireInstalled('Ceph RGW (the S3 the tests use)', RGW_REQUIREMENTS);
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? 90_000);
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'rgw-'));
  // The OSD may be restarted during start-up (see below), hence a mutable list.
  const daemons: Daemon[] = [];
  try {
    const monPort = await freePort();
    const rgwPort = await freePort();
    const fsid = randomUUID();
    const osdUuid = randomUUID();
    for (const sub of ['mon', 'osd', 'rgw', 'run', 'log', 'crash', 'home']) mkdirSync(join(dir, sub));
    const conf = join(dir, 'ceph.conf');
    writeFileSync(conf, cephConf(dir, fsid, monPort, rgwPort, options.memstoreBytes ?? 1024 * 1024 * 1024));
    const detached = options.detached === true;
    const keyring = join(dir, 'keyring');
    const monmap = join(dir, 'monmap');
    const env = daemonEnv(dir);
    const tool = (command: string, args: readonly string[], timeoutMs = 30_000) =>
      runTool(command, args, env, dir, Math.min(timeoutMs, deadline - Date.now()));

    await tool('ceph-authtool', [
      '--create-keyring',
      keyring,
      '--gen-key',
      '-n',
      'mon.',
      '--cap',
      'mon',
      'allow *',
    ]);
    await tool('monmaptool', ['--create', '--add', 'a', `v1:127.0.0.1:${monPort}`, '--fsid', fsid, monmap]);
    await tool('ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', monmap, '--keyring', keyring]);
    daemons.push(startDaemon('ceph-mon', ['-f', '-c', conf, '-i', 'a'], env, dir, detached));

    // The monitor takes a moment to form its one-member quorum; `osd create`
    // is the first command that needs it, so it doubles as the readiness probe.
    await retry(deadline, () => {
      checkAlive(daemons);
      return tool('ceph', ['-c', conf, '--connect-timeout', '5', 'osd', 'create', osdUuid, '0'], 10_000);
    });
    await tool('ceph-osd', ['-c', conf, '-i', '0', '--mkfs', '--osd-uuid', osdUuid]);
    const osdArgs = ['-f', '-c', conf, '-i', '0'] as const;
    daemons.push(startDaemon('ceph-osd', osdArgs, env, dir, detached));
    daemons.push(startDaemon('radosgw', ['-f', '-c', conf, '-n', 'client.rgw.a'], env, dir, detached));

    // Ceph 16's OSD sometimes sends its first monitor command before its
    // monitor client holds the map (the monitor answers "wrong fsid") and
    // exits; a fresh start of the same OSD then succeeds. Observed only when
    // two clusters start at once on two cores. Restarts are spaced: four made
    // within 0.5 s all failed the same way (regression: a suite run refused
    // every test of a file because its cluster did not start).
    let osdRestarts = 0;
    let osdStarted = Date.now();
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await retry(deadline, async () => {
      const osdIndex = daemons.findIndex((daemon) => daemon.name === 'ceph-osd');
      if (daemons[osdIndex]?.exitCode() !== 'running' && osdRestarts < MAX_OSD_RESTARTS) {
        // Not a dead daemon yet: retried until its restart is due.
        if (Date.now() - osdStarted < (osdRestarts + 1) * OSD_RESTART_BACKOFF_MS)
          throw new Error('the OSD waits for its restart');
        osdRestarts += 1;
        osdStarted = Date.now();
        daemons[osdIndex] = startDaemon('ceph-osd', osdArgs, env, dir, detached);
      }
      checkAlive(daemons);
      const response = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
    });

    const accessKeyId = randomKey('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 20);
    const secretAccessKey = randomKey('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 40);
    await tool('radosgw-admin', [
      '-c',
      conf,
      'user',
      'create',
      '--uid=ci',
      '--display-name=ci',
      `--access-key=${accessKeyId}`,
      `--secret-key=${secretAccessKey}`,
    ]);
    const startupMs = Date.now() - started;

    const awsEnv = {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: REGION,
      AWS_CONFIG_FILE: join(dir, 'home', 'aws-config-absent'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'home', 'aws-credentials-absent'),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const clients: S3Client[] = [];
    const makeClient = (): S3Client => {
      // The pinned SDK's Node 20 notice would clutter every test log.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const client = new S3Client({
        endpoint,
        region: REGION,
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      clients.push(client);
      return client;
    };
    let bucketCounter = 0;
    let stopped = false;
    return {
      endpoint,
      region: REGION,
      accessKeyId,
      secretAccessKey,
      awsEnv,
      startupMs,
      dataDir: dir,
      detachedHandle: () => ({
        endpoint,
        region: REGION,
        accessKeyId,
        secretAccessKey,
        startupMs,
        dataDir: dir,
        pids: daemons.flatMap((daemon) => (daemon.child.pid === undefined ? [] : [daemon.child.pid])),
      }),
      daemonPids: () =>
        daemons.flatMap((daemon) => (daemon.child.pid === undefined ? [] : [daemon.child.pid])),
      client: makeClient,
      async createBucket(prefix = 'test') {
        bucketCounter += 1;
        const name = `${prefix}-${bucketCounter}-${randomKey('abcdefghijklmnopqrstuvwxyz0123456789', 8)}`;
        await makeClient().send(new CreateBucketCommand({ Bucket: name }));
        return name;
      },
      async admin(args) {
        return runTool('radosgw-admin', ['-c', conf, ...args], env, dir, 30_000);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        for (const client of clients) client.destroy();
        await killAll(daemons);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    const logs = tailLogs(dir);
    await killAll(daemons);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`radosgw did not start: ${String(error)}\n${logs}`);
  }
}

function cephConf(
  dir: string,
  fsid: string,
  monPort: number,
  rgwPort: number,
  memstoreBytes: number,
): string {
  // Admin sockets are off: their Unix socket paths have a 107-byte limit that a
  // deep TMPDIR would exceed, and nothing here needs them.
  return `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
public addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
keyring = ${dir}/keyring
run dir = ${dir}/run
admin socket =
pid file = ${dir}/run/$name.pid
log file = ${dir}/log/$name.log
crash dir = ${dir}/crash
setuser match path = ${dir}
mon data = ${dir}/mon
osd data = ${dir}/osd
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
mon cluster log to file = false
paxos propose interval = 0.01
paxos min wait = 0.001

[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`;
}

function daemonEnv(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    TMPDIR: dir,
    LANG: 'C.UTF-8',
    CEPH_CONF: join(dir, 'ceph.conf'),
  };
}

interface Daemon {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  exitCode(): number | null | 'running';
}

function startDaemon(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  dir: string,
  outliveParent: boolean,
): Daemon {
  const out = openSync(join(dir, 'log', `${name}.stdio`), 'a');
  const [command, commandArgs] = outliveParent
    ? [name, [...args]]
    : ['setpriv', ['--pdeathsig', 'SIGKILL', '--', name, ...args]];
  const child = spawn(command, commandArgs, {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', out, out],
  });
  if (outliveParent) child.unref();
  closeSync(out);
  let state: number | null | 'running' = 'running';
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      state = signal === null ? code : -1;
      resolve();
    });
    child.once('error', () => {
      state = -1;
      resolve();
    });
  });
  return { name, child, exited, exitCode: () => state };
}

async function killAll(daemons: readonly Daemon[]): Promise<void> {
  for (const daemon of [...daemons].reverse()) {
    const pid = daemon.child.pid;
    if (pid === undefined || daemon.exitCode() !== 'running') continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.all(daemons.map((daemon) => daemon.exited));
}

function runTool(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    if (timeoutMs <= 0) {
      reject(new Error(`${command}: start-up deadline passed`));
      return;
    }
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      if (code === 0) resolve(output);
      else
        reject(new Error(`${command} ${args[2] ?? ''} failed (${code ?? signal}): ${output.slice(-2000)}`));
    });
  });
}

/** Ends a start-up at once: a daemon is gone for good. */
class DaemonDied extends Error {}

function checkAlive(daemons: readonly Daemon[]): void {
  const dead = daemons.find((daemon) => daemon.exitCode() !== 'running');
  if (dead !== undefined) throw new DaemonDied(`${dead.name} exited (${String(dead.exitCode())})`);
}

/** Retries `attempt` until it succeeds, the deadline passes, or it throws `DaemonDied`. */
async function retry(deadline: number, attempt: () => Promise<unknown>): Promise<void> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await attempt();
      return;
    } catch (error) {
      if (error instanceof DaemonDied) throw error;
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`timed out: ${String(last)}`);
}

/**
 * A port that was free a moment ago, below the kernel's ephemeral range
 * (32768 and up by default on Linux). The gateway binds its port seconds
 * after the pick (the monitor and OSD start first, then its own start-up); a
 * port from the ephemeral range can meanwhile be handed to any outgoing
 * connection of the machine (one was: radosgw exited 98, address in use),
 * one below it only to a listener that picks the same number.
 */
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + (randomBytes(2).readUInt16BE(0) % 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function randomKey(alphabet: string, length: number): string {
  const bytes = randomBytes(length);
  let key = '';
  for (const byte of bytes) key += alphabet[byte % alphabet.length];
  return key;
}

function tailLogs(dir: string): string {
  const parts: string[] = [];
  for (const name of [
    'mon.a.log',
    'osd.0.log',
    'client.rgw.a.log',
    'ceph-mon.stdio',
    'ceph-osd.stdio',
    'radosgw.stdio',
  ]) {
    try {
      parts.push(`--- ${name}\n${readFileSync(join(dir, 'log', name), 'utf8').slice(-3000)}`);
    } catch {
      // not written
    }
  }
  return parts.join('\n');
}

/** Stops a cluster started with `detached: true` (possibly by another process): kills, waits, removes. */
export function stopDetachedRgw(handle: DetachedRgw): void {
  for (const pid of handle.pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 10_000;
  while (handle.pids.some((pid) => existsSync(`/proc/${pid}`)) && Date.now() < deadline) {
    Atomics.wait(sleeper, 0, 0, 20);
  }
  rmSync(handle.dataDir, { recursive: true, force: true });
}
