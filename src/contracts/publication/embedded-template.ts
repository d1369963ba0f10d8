import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Dir } from '../../core/fs/index.js';
import { packageRoot } from '../../core/package/index.js';

/**
 * Where the pre-initialised data directory of a new embedded ledger lives in
 * this copy of sealkit (docs/contracts.md#embedded-ledger): a gzipped tar of
 * the folder PGlite's initdb makes, shipped with the package so a first
 * publication loads it instead of running initdb in a second PostgreSQL.
 */
export const EMBEDDED_TEMPLATE_PATH = [
  'src',
  'contracts',
  'publication',
  'template',
  'pgdata.tar.gz',
] as const;

/**
 * PGlite's initdb arguments for the template: 1 MiB WAL segments instead of
 * 16 MiB, so a new ledger takes about 15 MB on disk, not 39 MB.
 */
export const EMBEDDED_TEMPLATE_INITDB = ['--wal-segsize=1'] as const;

/**
 * The template as PGlite's `loadDataDir` takes it, or undefined when this copy
 * has none (a bundled build): the ledger then starts the slow way, by initdb.
 */
export function readEmbeddedTemplate(): Blob | undefined {
  const root = packageRoot();
  if (root === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, ...EMBEDDED_TEMPLATE_PATH));
  } catch {
    return undefined;
  }
  return new Blob([new Uint8Array(bytes)], { type: 'application/x-gzip' });
}

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > length) throw new RangeError(`tar field too long: ${text}`);
  header.set(bytes, offset);
}

function octal(header: Uint8Array, offset: number, length: number, value: number): void {
  field(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** One POSIX ustar header: owner 0, mtime 0, so the bytes depend on the name, kind, mode and size only. */
function tarHeader(name: string, kind: 'file' | 'dir', size: number): Uint8Array {
  const header = new Uint8Array(BLOCK);
  field(header, 0, 100, name);
  octal(header, 100, 8, kind === 'dir' ? 0o700 : 0o600);
  octal(header, 108, 8, 0);
  octal(header, 116, 8, 0);
  octal(header, 124, 12, size);
  octal(header, 136, 12, 0);
  field(header, 148, 8, '        ');
  field(header, 156, 1, kind === 'dir' ? '5' : '0');
  field(header, 257, 8, 'ustar\u000000');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/**
 * A data directory as a deterministic gzipped tar: entries in byte order of
 * their paths, every owner, time and mode fixed, gzip without a name or time.
 * The same folder always gives the same bytes, so a regenerated template
 * differs from the committed one only where PostgreSQL's files differ.
 */
export function packDataDir(dir: string): Uint8Array {
  const parts: Uint8Array[] = [];
  const walk = (relative: string) => {
    const names = readdirSync(join(dir, relative)).sort((a, b) =>
      Buffer.compare(Buffer.from(a), Buffer.from(b)),
    );
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stat = statSync(join(dir, path));
      if (stat.isDirectory()) {
        parts.push(tarHeader(path, 'dir', 0));
        walk(path);
      } else if (stat.isFile()) {
        const data = readFileSync(join(dir, path));
        parts.push(tarHeader(path, 'file', data.length), data);
        const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
        if (pad > 0) parts.push(new Uint8Array(pad));
      } else {
        throw new Error(`not a file or folder in the data directory: ${path}`);
      }
    }
  };
  walk('');
  parts.push(new Uint8Array(2 * BLOCK));
  return new Uint8Array(gzipSync(Buffer.concat(parts), { level: 9 }));
}

/**
 * An embedded ledger's data directory as an uncompressed tar, read through
 * the held folder without following a link (a link, or anything else that is
 * not a file or a folder, is refused with an error): what a read-only open
 * loads into memory (docs/contracts.md#embedded-ledger).
 */
export function tarHeldDataDir(root: Dir): Uint8Array {
  const parts: Uint8Array[] = [];
  const walk = (dir: Dir, relative: string) => {
    const entries = [...dir.list()].sort((a, b) =>
      Buffer.compare(Buffer.from(a.bytes), Buffer.from(b.bytes)),
    );
    for (const entry of entries) {
      if (!entry.utf8) throw new Error('a name in the data directory is not UTF-8');
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const type = entry.type === 'unknown' ? dir.stat(entry.bytes).type : entry.type;
      if (type === 'directory') {
        parts.push(tarHeader(path, 'dir', 0));
        const child = dir.openDir(entry.bytes);
        try {
          walk(child, path);
        } finally {
          child.close();
        }
      } else if (type === 'file') {
        const file = dir.openFile(entry.bytes);
        let data: Uint8Array;
        try {
          const stat = file.stat();
          if (stat.type !== 'file') throw new Error('an entry of the data directory changed its kind');
          const size = Number(stat.size);
          data = file.readUpTo(size + 1);
          if (data.length !== size) throw new Error('a file of the data directory changed its size');
        } finally {
          file.close();
        }
        parts.push(tarHeader(path, 'file', data.length), data);
        const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
        if (pad > 0) parts.push(new Uint8Array(pad));
      } else {
        throw new Error('not a file or folder in the data directory');
      }
    }
  };
  walk(root, '');
  parts.push(new Uint8Array(2 * BLOCK));
  return Buffer.concat(parts);
}

/** One entry of a template tar, as `tarEntries` reads it back. */
export interface TarEntry {
  readonly name: string;
  readonly kind: 'file' | 'dir';
  readonly mode: number;
  readonly mtime: number;
  readonly size: number;
}

/** The entries of an uncompressed ustar archive (headers only), for checks of the template. */
export function tarEntries(tar: Uint8Array): readonly TarEntry[] {
  const entries: TarEntry[] = [];
  const text = (offset: number, length: number) => {
    const slice = tar.subarray(offset, offset + length);
    const end = slice.indexOf(0);
    return Buffer.from(end === -1 ? slice : slice.subarray(0, end)).toString('utf8');
  };
  let offset = 0;
  while (offset + BLOCK <= tar.length && tar.subarray(offset, offset + BLOCK).some((byte) => byte !== 0)) {
    const size = Number.parseInt(text(offset + 124, 12), 8);
    entries.push({
      name: text(offset, 100),
      kind: text(offset + 156, 1) === '5' ? 'dir' : 'file',
      mode: Number.parseInt(text(offset + 100, 8), 8),
      mtime: Number.parseInt(text(offset + 136, 12), 8),
      size,
    });
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
