import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_REQUIREMENTS, requireInstalled } from './installed.js';

/**
 * A real PostgreSQL 15 server for tests, started on 127.0.0.1 on a free port
 * with a fresh data directory owned by the (unprivileged) test user, and
 * removed afterwards. It never touches a system cluster.
 */
export interface PostgresServer {
  readonly url: string;
  readonly port: number;
  /** The folder of its Unix socket (`.s.PGSQL.<port>`). */
  readonly socketDir: string;
  stop(): void;
}

const BIN_DIRS = ['/usr/lib/postgresql/15/bin'];

export function postgresBinDir(): string {
  const found = BIN_DIRS.find((dir) => existsSync(join(dir, 'initdb')));
  if (found === undefined) {
    requireInstalled('PostgreSQL 15', POSTGRES_REQUIREMENTS);
    throw new Error('PostgreSQL 15 is not installed: apt-get install postgresql');
  }
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function run(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`${command} failed (${result.status}): ${result.stderr}`);
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const base = mkdtempSync(join(tmpdir(), 'sealkit-pg-'));
  const data = join(base, 'data');
  const socketDir = join(base, 'sock');
  run('mkdir', ['-m', '0700', socketDir]);
  run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  // A port picked free can be taken before the server binds it; retry a few times.
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const options = [
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${socketDir}`,
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
    ].join(' ');
    const started = spawnSync(
      join(bin, 'pg_ctl'),
      ['-D', data, '-l', join(base, 'log'), '-w', '-t', '30', '-o', options, 'start'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (started.status === 0) {
      return {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        socketDir,
        stop() {
          spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], { timeout: 60_000 });
          rmSync(base, { recursive: true, force: true });
        },
      };
    }
    if (attempt >= 3) {
      rmSync(base, { recursive: true, force: true });
      throw new Error(`pg_ctl start failed: ${started.stderr}`);
    }
  }
}
