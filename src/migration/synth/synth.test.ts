import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { at } from '../../core/list/index.js';
import { refuseSynth } from '../refusals.js';
import { bindFiles, FINISHED_AT, NOW, summary } from '../testing/bundles.js';
import { planSynthesis, type SynthesizeOptions } from './plan.js';
import { synthesizeEvidence } from './synthesize.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), '..', 'testdata', 'golden');
const CASES = {
  'sql-bigquery-seed7': { source: 'sql', destination: 'bigquery', seed: 7, finishedAt: FINISHED_AT },
  'csv-snowflake-seed3': {
    source: 'csv',
    destination: 'snowflake',
    seed: 3,
    tables: ['orders', 'customers'],
    sourceBindingId: 'shop_csv',
    finishedAt: '2025-03-14T09:26:53.250000Z',
  },
} satisfies Record<string, SynthesizeOptions>;

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sealkit-evidence-synth-'));
  roots.push(dir);
  return dir;
}

/** Every entry under `root` with its type, permission bits and (for files) bytes. */
function tree(root: string): Record<string, { type: string; mode: string; text?: string }> {
  const out: Record<string, { type: string; mode: string; text?: string }> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const mode = (stat.mode & 0o7777).toString(8);
      const key = relative(root, path);
      if (stat.isDirectory()) {
        out[key] = { type: 'dir', mode };
        walk(path);
      } else if (stat.isFile()) out[key] = { type: 'file', mode, text: readFileSync(path, 'utf8') };
      else out[key] = { type: 'other', mode };
    }
  };
  walk(root);
  return out;
}

function manifestPath(out: string): string {
  return join(out, 'run-manifests', at(readdirSync(join(out, 'run-manifests')), 0));
}

describe('synthesizeEvidence', () => {
  it.each(Object.entries<SynthesizeOptions>(CASES))(
    'writes owner-only files equal to the golden files (%s)',
    async (name, options) => {
      const out = join(workDir(), 'evidence');
      const result = await synthesizeEvidence({ ...options, out });
      expect(lstatSync(out).mode & 0o7777).toBe(0o700);
      const written = tree(out);
      const golden = Object.fromEntries(
        Object.entries(tree(join(GOLDEN, name))).map(([path, entry]) => [
          path.replace(/\.golden$/, ''),
          entry,
        ]),
      );
      expect(Object.keys(written)).toEqual(Object.keys(golden));
      for (const [path, entry] of Object.entries(written)) {
        expect(entry.mode).toBe(entry.type === 'dir' ? '700' : '600');
        expect(entry.text).toBe(golden[path]?.text);
      }
      expect(result).toEqual({
        status: 'written',
        synthetic: true,
        source: options.source,
        destination: options.destination,
        tables: options.tables ?? ['customers', 'products', 'orders', 'order_items'],
        files: [
          'mapping.json',
          'dry-run.json',
          relative(out, manifestPath(out)),
          'fixtures/README.md',
          ...(options.tables ?? ['customers', 'products', 'orders', 'order_items']).map(
            (table) => `fixtures/migration_bronze/${table}.csv`,
          ),
        ],
      });
    },
  );

  it('labels the dry run and the run manifest synthetic, in fields binding ignores', async () => {
    const out = join(workDir(), 'evidence');
    await synthesizeEvidence({ ...CASES['sql-bigquery-seed7'], out });
    const dryRun = JSON.parse(readFileSync(join(out, 'dry-run.json'), 'utf8')) as Record<string, unknown>;
    const manifest = JSON.parse(readFileSync(manifestPath(out), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(dryRun.readiness_note).toMatch(/^SYNTHETIC /);
    expect(manifest.source_identity?.note).toMatch(/^SYNTHETIC /);
  });

  it('gives the same bytes for the same options, and another run for another seed', async () => {
    const options: SynthesizeOptions = CASES['sql-bigquery-seed7'];
    const a = join(workDir(), 'a');
    const b = join(workDir(), 'b');
    const c = join(workDir(), 'c');
    await synthesizeEvidence({ ...options, out: a });
    await synthesizeEvidence({ ...options, out: b });
    await synthesizeEvidence({ ...options, seed: 8, out: c });
    expect(tree(a)).toEqual(tree(b));
    expect(Object.keys(tree(c))).not.toEqual(Object.keys(tree(a)));
    expect(planSynthesis(options)).toEqual(planSynthesis(options));
  });

  it('uses realistic raw headers (mixed case, spaces) and snake_case Bronze names', () => {
    const raw = new Set<string>();
    const bronze = new Set<string>();
    for (let seed = 0; seed < 8; seed++) {
      const plan = planSynthesis({ source: 'sql', destination: 'bigquery', seed, finishedAt: FINISHED_AT });
      const dryRun = JSON.parse(plan.files[1]?.content ?? '{}') as {
        normalized_identifier_safety: {
          tables: { normalized_columns: { name: string; normalized_name: string }[] }[];
        };
      };
      for (const table of dryRun.normalized_identifier_safety.tables) {
        for (const column of table.normalized_columns) {
          raw.add(column.name);
          bronze.add(column.normalized_name);
        }
      }
    }
    expect([...raw].some((name) => / /.test(name) && /[A-Z]/.test(name) && /[a-z]/.test(name))).toBe(true);
    expect([...raw].some((name) => /^[A-Z0-9_ ]+$/.test(name) && /[A-Z]/.test(name))).toBe(true);
    for (const name of bronze) expect(name).toMatch(/^[a-z_][a-z0-9_]*$/);
    expect(bronze).toContain('customer_id');
    expect(bronze).toContain('unit_price');
  });

  it.each([
    ['sql', 'bigquery', 'bound'],
    ['sql', 'snowflake', 'bound'],
    ['csv', 'bigquery', 'bound'],
    ['csv', 'snowflake', 'bound'],
    ['sql', 'duckdb', 'scaffold_destination_edition_unbound'],
    ['csv', 'duckdb', 'scaffold_destination_edition_unbound'],
  ] as const)('binds %s → %s through the file readers (%s)', async (source, destination, code) => {
    const out = join(workDir(), 'evidence');
    await synthesizeEvidence({
      source,
      destination,
      tables: ['order_items', 'customers'],
      finishedAt: FINISHED_AT,
      out,
    });
    const outcome = bindFiles({
      mappingFile: join(out, 'mapping.json'),
      dryRunFile: join(out, 'dry-run.json'),
      runManifestFile: manifestPath(out),
    });
    expect(summary(outcome).code).toBe(code);
    if (outcome.status === 'bound') {
      expect(outcome.edition).toBe(
        destination === 'bigquery' ? 'editions/Bigquery/' : 'editions/Snowflake/kit/',
      );
      expect(outcome.tables.map((table) => table.table)).toEqual(['customers', 'order_items']);
    }
    const manifest = JSON.parse(readFileSync(manifestPath(out), 'utf8')) as { entities: string[] };
    // SQL entities keep the load's --tables order; the dry run sorts.
    expect(manifest.entities).toEqual(['order_items', 'customers']);
  });

  it('defaults the finish time to the current second, so fresh evidence binds now', async () => {
    const out = join(workDir(), 'evidence');
    await synthesizeEvidence({ source: 'sql', destination: 'bigquery', out });
    const outcome = bindFiles(
      {
        mappingFile: join(out, 'mapping.json'),
        dryRunFile: join(out, 'dry-run.json'),
        runManifestFile: manifestPath(out),
      },
      { now: new Date(), maxAge: 60 },
    );
    expect(summary(outcome)).toEqual({ code: 'bound' });
    expect(NOW.getTime()).toBeLessThan(Date.now());
  });
});

describe('synthesizeEvidence refusals: nothing written, nothing lost', () => {
  const options: SynthesizeOptions = { source: 'sql', destination: 'bigquery', finishedAt: FINISHED_AT };

  async function refusal(work: () => Promise<unknown>): Promise<string> {
    try {
      await work();
    } catch (error: unknown) {
      if (refuseSynth.is(error)) return error.code;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('never replaces an existing directory, file or dangling symlink', async () => {
    const parent = workDir();
    mkdirSync(join(parent, 'dir'), { mode: 0o700 });
    writeFileSync(join(parent, 'dir', 'keep.txt'), 'mine');
    writeFileSync(join(parent, 'file'), 'mine');
    symlinkSync(join(parent, 'nowhere'), join(parent, 'link'));
    const before = tree(parent);
    for (const name of ['dir', 'file', 'link']) {
      expect(await refusal(() => synthesizeEvidence({ ...options, out: join(parent, name) }))).toBe(
        'evidence_synth_output_exists',
      );
    }
    expect(tree(parent)).toEqual(before);
  });

  it('refuses a missing parent and a symlink on the way, leaving no staging directory', async () => {
    const parent = workDir();
    mkdirSync(join(parent, 'real'), { mode: 0o700 });
    symlinkSync(join(parent, 'real'), join(parent, 'alias'));
    expect(
      await refusal(() => synthesizeEvidence({ ...options, out: join(parent, 'absent', 'evidence') })),
    ).toBe('evidence_synth_parent_missing');
    expect(
      await refusal(() => synthesizeEvidence({ ...options, out: join(parent, 'alias', 'evidence') })),
    ).toBe('evidence_synth_parent_unsafe');
    expect(readdirSync(join(parent, 'real'))).toEqual([]);
    expect(readdirSync(parent).sort()).toEqual(['alias', 'real']);
  });

  it('refuses options outside their values before touching the filesystem', async () => {
    const parent = workDir();
    const out = join(parent, 'evidence');
    for (const bad of [
      { tables: ['customers', 'customers'] },
      { tables: ['invoices'] },
      { tables: [] },
      { sourceBindingId: 'Not-An-Alias' },
      { finishedAt: '2025-03-14T09:26:53+02:00' },
      { finishedAt: '2025-02-30T00:00:00Z' },
      { seed: -1 },
      { seed: 1.5 },
    ]) {
      expect(await refusal(() => synthesizeEvidence({ ...options, ...bad, out }))).toBe(
        'evidence_synth_option_invalid',
      );
    }
    expect(await refusal(() => synthesizeEvidence({ ...options, out: `${parent}/..` }))).toBe(
      'evidence_synth_option_invalid',
    );
    expect(readdirSync(parent)).toEqual([]);
  });

  it.each([
    ['source', { source: 'parquet' }],
    ['destination', { destination: 'redshift' }],
    ['tables', { tables: ['invoices'] }],
    ['sourceBindingId', { sourceBindingId: 'Not-An-Alias' }],
    ['finishedAt', { finishedAt: 'yesterday' }],
    ['seed', { seed: -1 }],
    ['out', { out: 'evidence/..' }],
    ['out', { out: '' }],
    ['out', { out: 'ev\uD800' }],
    ['faults', { faults: { rules: 'fail@nowhere' } }],
  ])('regression: an option outside its values is refused naming %s as the field', async (field, bad) => {
    const parent = workDir();
    const given = { ...options, out: join(parent, 'evidence'), ...bad } as Parameters<
      typeof synthesizeEvidence
    >[0];
    const refused = await synthesizeEvidence(given).then(
      () => undefined,
      (error: unknown) => (refuseSynth.is(error) ? error.toJSON() : error),
    );
    expect(refused).toMatchObject({ reason_code: 'evidence_synth_option_invalid', field });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('leaves only the published directory in the parent after success', async () => {
    const parent = workDir();
    await synthesizeEvidence({ ...options, out: join(parent, 'evidence') });
    expect(readdirSync(parent)).toEqual(['evidence']);
  });
});
