import { createHash } from 'node:crypto';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './cli.js';

/** The dbt project folder of each shipped edition, inside the checkout. */
export const EDITION_PROJECTS = {
  bigquery: join(REPO_ROOT, 'editions', 'Bigquery'),
  snowflake: join(REPO_ROOT, 'editions', 'Snowflake', 'kit'),
} as const;

/** A writable copy of an edition's dbt project (for planting faults), at `dest`. */
export function copyProject(edition: keyof typeof EDITION_PROJECTS, dest: string): string {
  cpSync(EDITION_PROJECTS[edition], dest, { recursive: true });
  return dest;
}

/**
 * A snapshot of a tree: every entry by relative path, with the SHA-256 of a
 * file's bytes and mode, a directory's mode, or a link's target. Nothing is
 * followed. `exclude` names top-level entries to leave out.
 */
export function snapshotTree(root: string, exclude: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === '' && exclude.includes(name)) continue;
      const path = join(dir, name);
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const stat = lstatSync(path);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isSymbolicLink()) out.set(relPath, `link ${readlinkSync(path)}`);
      else if (stat.isDirectory()) {
        out.set(relPath, `dir ${mode}`);
        walk(path, relPath);
      } else if (stat.isFile())
        out.set(relPath, `file ${mode} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
      else out.set(relPath, `other ${mode}`);
    }
  };
  walk(root, '');
  return out;
}

/** Writes `<dir>/<source>/<table>.csv` files from raw CSV text. */
export function writeFixtures(dir: string, tables: Readonly<Record<string, string>>): string {
  for (const [key, text] of Object.entries(tables)) {
    const [source, table] = key.split('.');
    const path = join(dir, source ?? '', `${table}.csv`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}
