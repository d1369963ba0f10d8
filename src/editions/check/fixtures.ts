import { Dir, isFsError } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { readTree, TreeReadError } from '../tree.js';
import { type CsvTable, parseCsv } from './csv.js';
import { IDENTIFIER } from './sql.js';

export interface FixtureTable extends CsvTable {
  readonly source: string;
  readonly table: string;
}

/** Bronze fixtures: one CSV per source table, laid out `<source>/<table>.csv`. */
export interface FixtureSet {
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
 * `<identifier>/<identifier>.csv` is refused, as is malformed CSV.
 */
export function readFixtures(dir: string): FixtureSet {
  return guardRefusals(
    () => {
      let root: Dir;
      try {
        root = Dir.open(dir);
      } catch (error: unknown) {
        if (isFsError(error, 'ENOENT')) throw refuseEdition('fixtures_missing');
        throw refuseEdition('fixtures_invalid');
      }
      try {
        let tree: ReturnType<typeof readTree>;
        try {
          tree = readTree(root, { limits: FIXTURE_LIMITS });
        } catch (error: unknown) {
          if (error instanceof TreeReadError)
            throw refuseEdition(error.problem === 'too_large' ? 'fixtures_too_large' : 'fixtures_invalid');
          throw error;
        }
        if (tree.dirs.some((path) => path.includes('/') || !IDENTIFIER.test(path)))
          throw refuseEdition('fixtures_invalid');
        const tables: FixtureTable[] = [];
        for (const file of tree.files) {
          const parts = file.path.split('/');
          if (parts.length === 1 && file.path.endsWith('.md')) continue;
          const [source, name] = parts;
          const table = name?.endsWith('.csv') === true ? name.slice(0, -4) : undefined;
          if (parts.length !== 2 || source === undefined || table === undefined || !IDENTIFIER.test(table))
            throw refuseEdition('fixtures_invalid');
          const parsed = parseCsv(file.bytes);
          if (parsed === undefined) throw refuseEdition('fixtures_invalid');
          tables.push({ source, table, ...parsed });
        }
        return { tables };
      } finally {
        root.close();
      }
    },
    () => refuseEdition('fixtures_invalid'),
  );
}
