import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBinDir, startPostgres } from '../test/services/postgres.js';

export interface BenchPostgres {
  readonly url: string;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * A real PostgreSQL 15 server for the benchmark, with the test service's
 * settings (fsync and synchronous commit off: the figures measure sealkit and
 * the server's work, not the disk). `npm run bench` may run as root, whose
 * initdb refuses to run: then the server runs as Debian's `postgres` account.
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  if (process.geteuid?.() !== 0) return startPostgres();
  const bin = postgresBinDir();
  const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (ids.status !== 0 || gids.status !== 0)
    throw new Error('the postgres account is missing (Debian package postgresql)');
  const base = mkdtempSync(join(tmpdir(), 'sealkit-bench-pg-'));
  const data = join(base, 'data');
  const socketDir = join(base, 'sock');
  mkdirSync(socketDir, { mode: 0o700 });
  for (const path of [base, socketDir]) chownSync(path, Number(ids.stdout), Number(gids.stdout));
  const asPostgres = (tool: string, args: readonly string[]) => {
    const result = spawnSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr}`);
  };
  asPostgres('initdb', [
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
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${socketDir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  asPostgres('pg_ctl', ['-D', data, '-l', join(base, 'log'), '-w', '-t', '30', '-o', options, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      spawnSync(
        'runuser',
        ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop'],
        {
          timeout: 60_000,
        },
      );
      rmSync(base, { recursive: true, force: true });
    },
  };
}
