import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../core/package/index.js';
import {
  EMBEDDED_TEMPLATE_PATH,
  packDataDir,
  readEmbeddedTemplate,
  tarEntries,
} from './embedded-template.js';
import { openEmbeddedLedger } from './open-embedded.js';

const work = mkdtempSync(join(tmpdir(), 'sealkit-template-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function shipped(): Uint8Array {
  const root = packageRoot();
  if (root === undefined) throw new Error('no package root');
  return readFileSync(join(root, ...EMBEDDED_TEMPLATE_PATH));
}

async function controlOf(db: PGlite): Promise<readonly unknown[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT catalog_version_no::text AS catalog, pg_control_version::text AS control,
       current_setting('server_version_num') AS server FROM pg_control_system()`,
  );
  return rows.rows;
}

describe('the embedded ledger template', () => {
  it('is a normalised tar: paths in byte order, owner, time and modes fixed, no lock file', () => {
    const entries = tarEntries(gunzipSync(shipped()));
    const names = entries.map((entry) => entry.name);
    expect(names).toEqual([...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(new Set(entries.map((entry) => `${entry.kind} ${entry.mode.toString(8)} ${entry.mtime}`))).toEqual(
      new Set(['dir 700 0', 'file 600 0']),
    );
    expect(names).toContain('PG_VERSION');
    expect(names.filter((name) => name.startsWith('postmaster.'))).toEqual([]);
  });

  it('was made by the installed PGlite: same catalog, control and server version as its initdb', async () => {
    const template = readEmbeddedTemplate();
    if (template === undefined) throw new Error('the template is missing');
    const loaded = await PGlite.create({ loadDataDir: template });
    const fresh = await PGlite.create();
    try {
      expect(await controlOf(loaded)).toEqual(await controlOf(fresh));
      const databases = await loaded.query<{ datname: string }>('SELECT datname FROM pg_database');
      expect(databases.rows).toEqual([{ datname: 'postgres' }]);
    } finally {
      await loaded.close();
      await fresh.close();
    }
  }, 120_000);

  it('packs the same folder into the same bytes whatever its times and modes', () => {
    const dir = join(work, 'pack');
    mkdirSync(join(dir, 'base', '1'), { recursive: true });
    writeFileSync(join(dir, 'PG_VERSION'), '18\n');
    writeFileSync(join(dir, 'base', '1', 'b'), 'x'.repeat(700));
    writeFileSync(join(dir, 'base', '1', 'a'), '');
    const first = packDataDir(dir);
    chmodSync(join(dir, 'PG_VERSION'), 0o644);
    utimesSync(join(dir, 'base', '1', 'b'), 1, 1);
    const second = packDataDir(dir);
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect(tarEntries(gunzipSync(first))).toEqual([
      { name: 'PG_VERSION', kind: 'file', mode: 0o600, mtime: 0, size: 3 },
      { name: 'base', kind: 'dir', mode: 0o700, mtime: 0, size: 0 },
      { name: 'base/1', kind: 'dir', mode: 0o700, mtime: 0, size: 0 },
      { name: 'base/1/a', kind: 'file', mode: 0o600, mtime: 0, size: 0 },
      { name: 'base/1/b', kind: 'file', mode: 0o600, mtime: 0, size: 700 },
    ]);
  });
});

describe('a new embedded ledger', () => {
  async function settingsOf(
    project: string,
    start?: Parameters<typeof openEmbeddedLedger>[1]['start'],
  ): Promise<readonly unknown[]> {
    const connection = await openEmbeddedLedger(project, { create: true, ...(start ? { start } : {}) });
    try {
      return await connection.session.query(
        `SELECT current_setting('wal_segment_size') AS wal, current_setting('shared_buffers') AS buffers`,
      );
    } finally {
      await connection.close();
    }
  }

  it('starts from the template with small shared buffers, and stays on it when reopened', async () => {
    const project = join(work, 'template-project');
    mkdirSync(project);
    expect(await settingsOf(project)).toEqual([{ wal: '1MB', buffers: '8MB' }]);
    expect(await settingsOf(project)).toEqual([{ wal: '1MB', buffers: '8MB' }]);
  }, 120_000);

  it('runs initdb with PGlite defaults when asked to start the way it did before the template', async () => {
    const project = join(work, 'initdb-project');
    mkdirSync(project);
    expect(await settingsOf(project, { dataDir: 'initdb', settings: 'pglite' })).toEqual([
      { wal: '16MB', buffers: '128MB' },
    ]);
  }, 120_000);
});
