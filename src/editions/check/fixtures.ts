import { join } from 'node:path';
import { Dir, didYouMeanPath, isFsError } from '../../core/fs/index.js';
import { refuseInput } from '../../core/input/index.js';
import { guardRefusals, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { symlinkHint } from '../symlink-on-path.js';
import { readTree, TreeReadError } from '../tree.js';
import { type CsvTable, readCsv } from './csv.js';
import { unreadable } from './project-files.js';
import { IDENTIFIER } from './sql.js';

export interface FixtureTable extends CsvTable {
  readonly source: string;
  readonly table: string;
  /** The fixtures folder it was read from, as the user named it. */
  readonly dir?: string;
}

/** Bronze fixtures: one CSV per source table, laid out `<source>/<table>.csv`. */
export interface FixtureSet {
  /** The fixtures folder as the user named it. */
  readonly dir: string;
  readonly tables: readonly FixtureTable[];
}

export const FIXTURE_LIMITS = {
  maxFiles: 1_000,
  maxTotalBytes: 256 * 1024 * 1024,
  maxFileBytes: 64 * 1024 * 1024,
  maxDepth: 2,
} as const;

/**
 * Reads a fixtures directory through held no-follow descriptors. Top-level
 * `.md` files (a README) are ignored; anything else that is not
 * `<identifier>/<identifier>.csv` is refused, as is malformed CSV: every
 * such file at once, each named under the folder as given, with the line.
 */
export function readFixtures(dir: string): FixtureSet {
  const read = readFixtureTables(dir);
  if (read.faults.length > 0) throw refuseAll(read.faults);
  return read.set;
}

/** Fixtures as far as they can be read, with what could not be (each file's fault). */
export interface FixtureRead {
  readonly set: FixtureSet;
  readonly faults: readonly Refusal[];
}

/**
 * The well-formed tables of a fixtures directory and the faults of the
 * rest, so that a check can add its own findings about the tables (one no
 * source defines) to the same list: fixture problems are listed all at once.
 * A folder that cannot be opened or listed at all is thrown.
 */
function readFixtureTables(dir: string): FixtureRead {
  return guardRefusals(
    () => {
      let root: Dir;
      try {
        root = Dir.open(dir);
      } catch (error: unknown) {
        if (isFsError(error, 'ENOENT')) {
          const hint = didYouMeanPath(dir, 'folder');
          throw refuseEdition('fixtures_missing', {
            location: { path: dir },
            ...(hint === undefined ? {} : { hint }),
          });
        }
        throw refuseEdition('fixtures_invalid', {
          location: { path: dir },
          hint:
            (isFsError(error, 'ELOOP') ? symlinkHint(dir, 'the fixtures') : undefined) ??
            'the fixtures path is not a folder that can be opened',
        });
      }
      try {
        let tree: ReturnType<typeof readTree>;
        try {
          tree = readTree(root, { limits: FIXTURE_LIMITS });
        } catch (error: unknown) {
          if (error instanceof TreeReadError) {
            const location = { path: join(dir, error.path ?? '') };
            // The CSV (or its folder) this account cannot read, not the fixtures as a whole.
            if (error.problem === 'unreadable') throw unreadable(location.path, error.folder);
            throw refuseEdition(error.problem === 'too_large' ? 'fixtures_too_large' : 'fixtures_invalid', {
              location,
              ...(error.problem === 'too_large'
                ? {}
                : { hint: 'a symbolic link, a special file or a name that is not UTF-8' }),
            });
          }
          throw error;
        }
        const faults: Refusal[] = [];
        for (const path of tree.dirs) {
          if (path.includes('/') || !IDENTIFIER.test(path))
            faults.push(
              refuseEdition('fixtures_invalid', {
                location: { path: join(dir, path) },
                hint: path.includes('/')
                  ? 'fixtures are <source>/<table>.csv: one folder level only'
                  : 'a source folder name must be a plain identifier (letters, digits, _)',
              }),
            );
        }
        const tables: FixtureTable[] = [];
        for (const file of tree.files) {
          const parts = file.path.split('/');
          if (parts.length === 1 && file.path.endsWith('.md')) continue;
          const [source, name] = parts;
          const table = name?.endsWith('.csv') === true ? name.slice(0, -4) : undefined;
          const location = { path: join(dir, file.path) };
          if (parts.length !== 2 || source === undefined || table === undefined || !IDENTIFIER.test(table)) {
            faults.push(
              refuseEdition('fixtures_invalid', {
                location,
                hint: 'fixtures are <source>/<table>.csv with plain identifier names',
              }),
            );
            continue;
          }
          const read = readCsv(file.bytes);
          if (!read.ok) {
            faults.push(
              refuseEdition('fixtures_invalid', {
                location: {
                  ...location,
                  line: read.line,
                  ...(read.column === undefined ? {} : { column: read.column }),
                },
                hint: read.hint,
              }),
            );
            continue;
          }
          tables.push({ source, table, dir, ...read.table });
        }
        return { set: { dir, tables }, faults };
      } finally {
        root.close();
      }
    },
    () => refuseEdition('fixtures_invalid', { location: { path: dir } }),
  );
}

/**
 * Several fixtures folders as one set, read in the order given: a table of a
 * later folder replaces the same `<source>/<table>` of an earlier one. Every
 * folder's faults are reported together. `dir` is the first folder, where a
 * missing fixture is suggested.
 */
export function overlayFixtures(dirs: string | readonly string[]): FixtureSet {
  const read = readFixtureFolders(dirs);
  if (read.faults.length > 0) throw refuseAll(read.faults);
  return read.set;
}

/**
 * `overlayFixtures` without refusing: the tables that could be read and
 * every folder's faults, a folder that cannot be read at all among them.
 */
export function readFixtureFolders(dirs: string | readonly string[]): FixtureRead {
  const list = typeof dirs === 'string' ? [dirs] : dirs;
  const first = list[0];
  if (first === undefined) throw refuseEdition('fixtures_missing', { location: { path: '.' } });
  const faults: Refusal[] = [];
  const byKey = new Map<string, FixtureTable>();
  for (const dir of list) {
    try {
      const read = readFixtureTables(dir);
      for (const table of read.set.tables) byKey.set(`${table.source}.${table.table}`, table);
      faults.push(...read.faults);
    } catch (error: unknown) {
      if (!refuseEdition.is(error) && !refuseInput.is(error)) throw error;
      faults.push(error);
    }
  }
  return { set: { dir: first, tables: [...byKey.values()] }, faults };
}
