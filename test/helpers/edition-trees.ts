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

/** Writes files (text or bytes) under `dir` by relative path, making folders as needed. */
export function writeTree(dir: string, files: Readonly<Record<string, string | Uint8Array>>): string {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return dir;
}

/**
 * A small dbt project of the editions' shape (one Bronze source, two Silver
 * models, one Gold model, schema tests, fixtures that pass), for planting one
 * fault at a time: `overrides` replaces or adds files, `null` removes one.
 */
export const SMALL_PROJECT: Readonly<Record<string, string>> = {
  'dbt_project.yml': [
    'name: shop',
    'version: "1.0.0"',
    'config-version: 2',
    'profile: shop',
    'model-paths: ["models"]',
    'macro-paths: ["macros"]',
    '',
  ].join('\n'),
  'models/bronze/_bronze__sources.yml': [
    'version: 2',
    '',
    'sources:',
    '  - name: bronze',
    '    tables:',
    '      - name: orders',
    '      - name: order_items',
    '',
  ].join('\n'),
  'models/silver/silver_orders.sql': [
    'select',
    '    order_id,',
    '    customer_id,',
    '    order_status',
    "from {{ source('bronze', 'orders') }}",
    '',
  ].join('\n'),
  'models/silver/silver_order_items.sql': [
    'select',
    '    order_item_id,',
    '    order_id,',
    '    cast(quantity as integer) as quantity',
    "from {{ source('bronze', 'order_items') }}",
    '',
  ].join('\n'),
  'models/silver/_silver__models.yml': [
    'version: 2',
    '',
    'models:',
    '  - name: silver_orders',
    '    columns:',
    '      - name: order_id',
    '        data_tests: [not_null, unique]',
    '      - name: order_status',
    '        data_tests:',
    '          - accepted_values:',
    "              values: ['placed', 'shipped']",
    '  - name: silver_order_items',
    '    columns:',
    '      - name: order_item_id',
    '        data_tests: [not_null, unique]',
    '      - name: order_id',
    '        data_tests:',
    '          - relationships:',
    "              to: ref('silver_orders')",
    '              field: order_id',
    '',
  ].join('\n'),
  'models/gold/gold_order_sizes.sql': [
    'select',
    '    orders.order_id,',
    '    sum(items.quantity) as quantity',
    "from {{ ref('silver_orders') }} as orders",
    "join {{ ref('silver_order_items') }} as items",
    '    on items.order_id = orders.order_id',
    'group by orders.order_id',
    '',
  ].join('\n'),
  'fixtures/bronze/orders.csv':
    'order_id,customer_id,order_status\no1,c1,placed\no2,c2,shipped\no3,c1,placed\n',
  'fixtures/bronze/order_items.csv': 'order_item_id,order_id,quantity\ni1,o1,2\ni2,o1,1\ni3,o2,5\ni4,o3,1\n',
};

export function writeSmallProject(
  dir: string,
  overrides: Readonly<Record<string, string | Uint8Array | null>> = {},
): string {
  const files: Record<string, string | Uint8Array> = { ...SMALL_PROJECT };
  for (const [path, content] of Object.entries(overrides)) {
    if (content === null) delete files[path];
    else files[path] = content;
  }
  return writeTree(dir, files);
}
