import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { CliChild } from '../../../test/helpers/cli-child.js';
import { snapshotTree } from '../../../test/helpers/edition-trees.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';

const PARENT_NOT_WRITABLE =
  'the directory that should hold the synthetic evidence directory is not writable by you, or you may not enter it or a folder above it (their permissions, or a read-only filesystem)';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-evidence-'));
  roots.push(dir);
  return dir;
}

interface Synthesized {
  readonly out: string;
  readonly mapping: string;
  readonly dryRun: string;
  readonly manifest: string;
}

function synth(extra: readonly string[] = []): Synthesized {
  const out = join(workDir(), 'evidence');
  const run = runCli([
    'evidence',
    'synth',
    '--out',
    out,
    '--source',
    'sql',
    '--destination',
    'bigquery',
    ...extra,
  ]);
  expect({ status: run.status, stderr: run.stderr.toString() }).toEqual({ status: 0, stderr: '' });
  const [name] = readdirSync(join(out, 'run-manifests'));
  return {
    out,
    mapping: join(out, 'mapping.json'),
    dryRun: join(out, 'dry-run.json'),
    manifest: join(out, 'run-manifests', name as string),
  };
}

function check(evidence: Synthesized, extra: readonly string[]): ReturnType<typeof runCli> {
  return runCli([
    'evidence',
    'check',
    '--mapping-file',
    evidence.mapping,
    '--inventory-file',
    evidence.dryRun,
    '--run-manifest',
    evidence.manifest,
    ...extra,
  ]);
}

/**
 * What a successful check must never print: the never-emitted list of
 * docs/evidence.md#privacy, as the synthetic files hold it.
 */
function neverEmitted(evidence: Synthesized): string[] {
  const dryRun = JSON.parse(readFileSync(evidence.dryRun, 'utf8')) as Record<string, unknown>;
  const manifest = JSON.parse(readFileSync(evidence.manifest, 'utf8')) as Record<string, unknown>;
  const inventory = dryRun.inventory as { row_count: number; columns: { name: string; type: string }[] }[];
  return [
    evidence.out,
    'mapping.json',
    'dry-run.json',
    String(manifest.run_id),
    String(manifest.target_identity),
    String(manifest.pipeline_name),
    String((manifest.source_identity as Record<string, unknown>).schema),
    ...(manifest.load_ids as string[]),
    ...inventory.map((entry) => String(entry.row_count)),
    ...inventory.flatMap((entry) => entry.columns.map((column) => column.type)),
    ...inventory
      .flatMap((entry) => entry.columns.map((column) => column.name))
      // 'Status' would match the output's own "status" key.
      .filter((name) => name.length >= 4 && name.toLowerCase() !== 'status'),
    String(manifest.source_mapping_fingerprint),
    String(manifest.schema_confirmation_fingerprint),
    String(manifest.source_schema_fingerprint),
    String(manifest.typed_schema_fingerprint),
    String(dryRun.readiness_note),
  ];
}

describe('sealkit evidence check', () => {
  it('prints the bound tables and edition, and nothing from the never-emitted list', () => {
    const evidence = synth();
    const args = ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', '36h'];
    const json = check(evidence, [...args, '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout.toString())).toEqual({
      status: 'bound',
      edition: 'editions/Bigquery/',
      destination: 'bigquery',
      source_kind: 'sql',
      tables: [
        { table: 'customers', bronze_table: 'customers', source_columns: 3, mapping_rules: 3 },
        { table: 'order_items', bronze_table: 'order_items', source_columns: 5, mapping_rules: 5 },
        { table: 'orders', bronze_table: 'orders', source_columns: 5, mapping_rules: 5 },
        { table: 'products', bronze_table: 'products', source_columns: 3, mapping_rules: 3 },
      ],
    });
    const human = check(evidence, args);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toContain('bound: the evidence selects editions/Bigquery/');
    expect(human.stdout.toString()).toContain('  orders -> orders: 5 source columns, 5 mapping rules\n');
    for (const run of [json, human]) {
      expect(run.stderr.length).toBe(0);
      expect(scanForSentinels(run, [], neverEmitted(evidence))).toEqual([]);
    }
  });

  it('accepts 7d, 3600 and 90m as maximum ages, and refuses a stale or future run with exit 2', () => {
    const evidence = synth();
    for (const age of ['7d', '3600', '90m', '45s']) {
      expect(
        check(evidence, ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', age]).status,
      ).toBe(0);
    }
    const old = synth(['--finished-at', '2024-01-01T00:00:00Z']);
    const stale = check(old, [
      '--source-binding-id',
      'synthetic_retail',
      '--max-evidence-age',
      '36h',
      '--json',
    ]);
    expect(stale.status).toBe(2);
    expect(JSON.parse(stale.stdout.toString())).toMatchObject({
      status: 'refused',
      reason_code: 'scaffold_evidence_stale',
      role: 'run_manifest',
      field: 'finished_at_utc',
    });
    const future = synth(['--finished-at', '2099-01-01T00:00:00Z']);
    expect(
      JSON.parse(
        check(future, [
          '--source-binding-id',
          'synthetic_retail',
          '--max-evidence-age',
          '3650d',
          '--json',
        ]).stdout.toString(),
      ),
    ).toMatchObject({ reason_code: 'scaffold_evidence_stale' });
  });

  it('refuses a missing alias, maximum age or file with its reason code, never a guess', () => {
    const evidence = synth();
    const noAlias = check(evidence, ['--max-evidence-age', '1d', '--json']);
    expect(noAlias.status).toBe(2);
    expect(JSON.parse(noAlias.stdout.toString())).toMatchObject({
      reason_code: 'scaffold_source_identity_unavailable',
      field: 'source_binding_id',
    });
    const noAge = check(evidence, ['--source-binding-id', 'synthetic_retail', '--json']);
    expect(JSON.parse(noAge.stdout.toString())).toMatchObject({
      reason_code: 'scaffold_evidence_freshness_unavailable',
      field: 'max_evidence_age',
    });
    const noMapping = runCli([
      'evidence',
      'check',
      '--inventory-file',
      evidence.dryRun,
      '--run-manifest',
      evidence.manifest,
      '--json',
    ]);
    expect(noMapping.status).toBe(2);
    expect(JSON.parse(noMapping.stdout.toString())).toMatchObject({
      reason_code: 'scaffold_input_missing',
      role: 'mapping',
    });
    const mismatch = check(evidence, ['--source-binding-id', 'other_shop', '--max-evidence-age', '1d']);
    expect(mismatch.status).toBe(2);
    expect(mismatch.stderr.toString()).toBe(
      'error[scaffold_source_identity_mismatch]: the source binding alias differs across the dry run, run manifest and invocation\n  = field: source_binding_id\n',
    );
  });

  it('regression: a byte-order mark is named by the refusal of an artifact an editor saved with one', () => {
    const evidence = synth();
    for (const [file, role] of [
      [evidence.mapping, 'mapping'],
      [evidence.dryRun, 'dry_run'],
    ] as const) {
      const original = readFileSync(file);
      writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), original]));
      const run = check(evidence, ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', '1d']);
      expect({ status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() }).toEqual({
        status: 2,
        stdout: '',
        stderr:
          'error[scaffold_input_malformed]: an evidence artifact is not a JSON object in UTF-8 without a byte-order mark, or it has a duplicate key\n' +
          `  = in: ${role}\n`,
      });
      writeFileSync(file, original);
    }
  });

  it('treats a malformed maximum age, an unknown flag or a positional as a usage error', () => {
    const evidence = synth();
    for (const age of ['1.5h', '0', '-1d', '36 h', '1w', '']) {
      const run = check(evidence, ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', age]);
      expect(run.status).toBe(1);
      // A value that starts with '-' is still read as the flag's value, and named.
      expect(run.stderr.toString()).toContain(
        `--max-evidence-age takes a whole number of seconds, or of days, hours, minutes or seconds (7d, 36h, 90m, 45s), written with 1 to 10 digits and no leading zero, not '${age}'`,
      );
    }
    // Regression: the bound is in the message, and a value at it is taken.
    for (const age of ['99999999999', '0036h', '01']) {
      const run = check(evidence, ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', age]);
      expect({ status: run.status, first: run.stderr.toString().split('\n')[0] }).toEqual({
        status: 1,
        first: `sealkit: --max-evidence-age takes a whole number of seconds, or of days, hours, minutes or seconds (7d, 36h, 90m, 45s), written with 1 to 10 digits and no leading zero, not '${age}'`,
      });
    }
    for (const age of ['9999999999', '9999999999d']) {
      expect(
        check(evidence, ['--source-binding-id', 'synthetic_retail', '--max-evidence-age', age]).status,
      ).toBe(0);
    }
    expect(runCli(['evidence', 'check', '--dry-run-file', evidence.dryRun]).status).toBe(1);
    expect(runCli(['evidence', 'check', evidence.dryRun]).status).toBe(1);
  });

  it.each([
    ['--mapping-file', '', '--mapping-file takes a value, not an empty string: --mapping-file FILE'],
    ['--inventory-file', '', '--inventory-file takes a value, not an empty string: --inventory-file FILE'],
    ['--run-manifest', '', '--run-manifest takes a value, not an empty string: --run-manifest FILE'],
    [
      '--source-binding-id',
      '',
      "--source-binding-id takes a lowercase letter, then up to 39 lowercase letters, digits or _, not ''",
    ],
    [
      '--source-binding-id',
      'ZORBEX',
      "--source-binding-id takes a lowercase letter, then up to 39 lowercase letters, digits or _, not 'ZORBEX'",
    ],
  ])(
    'regression: %s %j is a usage error naming the flag and its form, not a refusal',
    (flag, value, message) => {
      const evidence = synth();
      const args = [
        'evidence',
        'check',
        '--mapping-file',
        evidence.mapping,
        '--inventory-file',
        evidence.dryRun,
        '--run-manifest',
        evidence.manifest,
        '--source-binding-id',
        'synthetic_retail',
        '--max-evidence-age',
        '36500d',
      ];
      args[args.indexOf(flag) + 1] = value;
      const run = runCli(args);
      expect({ status: run.status, first: run.stderr.toString().split('\n')[0] }).toEqual({
        status: 1,
        first: `sealkit: ${message}`,
      });
      expect(run.stdout.length).toBe(0);
      const json = runCli([...args, '--json']);
      expect({ status: json.status, record: JSON.parse(json.stdout.toString()) }).toEqual({
        status: 1,
        record: { status: 'usage_error', reason_code: 'usage', message },
      });
    },
  );

  it('prints the digest of each planned file as sha256:<hex>, the form every command prints', () => {
    const out = join(workDir(), 'evidence');
    const plan = runCli([
      'evidence',
      'synth',
      '--out',
      out,
      '--source',
      'csv',
      '--destination',
      'snowflake',
      '--dry-run',
    ]);
    expect(plan.status).toBe(0);
    const files = plan.stdout
      .toString()
      .split('\n')
      .filter((line) => line.startsWith('  '));
    expect(files.length).toBeGreaterThan(0);
    for (const line of files) expect(line).toMatch(/^ {2}\S+ {2}0600 {2}\d+ bytes {2}sha256:[0-9a-f]{64}$/);
  });

  it('prints help', () => {
    const help = runCli(['evidence', 'check', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain('Usage: sealkit evidence check');
    expect(runCli(['evidence', '--help']).stdout.toString()).toContain('sealkit evidence synth');
    // Without a command the group is a usage error, its commands listed on stderr.
    const bare = runCli(['evidence']);
    expect(bare.status).toBe(1);
    expect(bare.stderr.toString()).toContain('sealkit evidence synth');
  });
});

describe('sealkit evidence synth', () => {
  it.each([
    ['--source', 'xml', "--source takes one of csv, sql, not 'xml'"],
    ['--destination', 'redshift', "--destination takes one of bigquery, snowflake, duckdb, not 'redshift'"],
    ['--tables', 'orders,orders', '--tables takes a comma-separated list without repeats of customers'],
    ['--source-binding-id', 'CRM', '--source-binding-id takes a lowercase letter, then up to 39'],
    [
      '--finished-at',
      '2025-03-14 09:26',
      "--finished-at takes a UTC timestamp such as 2026-05-30T06:00:00Z, not '2025-03-14 09:26'",
    ],
    ['--seed', '-1x', "--seed takes a whole number from 0 to 999999999, not '-1x'"],
  ])('a wrong %s value is a usage error that says what it takes', (flag, value, message) => {
    const out = join(workDir(), 'evidence');
    const base: Record<string, string> = { '--source': 'csv', '--destination': 'duckdb' };
    base[flag] = value;
    const run = runCli([
      'evidence',
      'synth',
      '--out',
      out,
      ...Object.entries(base).flatMap(([k, v]) => [`${k}=${v}`]),
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain(message);
    expect(readdirSync(join(out, '..'))).toEqual([]);
  });

  it('writes owner-only synthetic evidence and lists the files', () => {
    const out = join(workDir(), 'evidence');
    const run = runCli([
      'evidence',
      'synth',
      '--out',
      out,
      '--source',
      'csv',
      '--destination',
      'snowflake',
      '--tables',
      'orders,customers',
      '--seed',
      '3',
      '--finished-at',
      '2025-03-14T09:26:53Z',
      '--json',
    ]);
    expect(run.status).toBe(0);
    const printed = JSON.parse(run.stdout.toString()) as { files: string[] };
    expect(printed).toMatchObject({
      status: 'written',
      synthetic: true,
      source: 'csv',
      destination: 'snowflake',
      tables: ['orders', 'customers'],
    });
    expect(printed.files.slice(0, 2)).toEqual(['mapping.json', 'dry-run.json']);
    expect(printed.files[2]).toMatch(/^run-manifests\/[0-9a-f-]{36}\.json$/);
    expect(readdirSync(out).sort()).toEqual(['dry-run.json', 'fixtures', 'mapping.json', 'run-manifests']);
    expect(printed.files.slice(3)).toEqual([
      'fixtures/README.md',
      'fixtures/migration_bronze/orders.csv',
      'fixtures/migration_bronze/customers.csv',
    ]);
  });

  it('prints with --dry-run the very plan it would write, and writes nothing', () => {
    const parent = workDir();
    const args = [
      'evidence',
      'synth',
      '--out',
      join(parent, 'evidence'),
      '--source',
      'sql',
      '--destination',
      'duckdb',
    ];
    const fixed = ['--finished-at', '2025-03-14T09:26:53Z', '--seed', '5'];
    const plan = runCli([...args, ...fixed, '--dry-run', '--json']);
    expect(plan.status).toBe(0);
    expect(readdirSync(parent)).toEqual([]);
    const planned = JSON.parse(plan.stdout.toString()) as {
      status: string;
      files: { path: string; content: string; mode: string }[];
    };
    expect(planned.status).toBe('planned');
    expect(runCli([...args, ...fixed]).status).toBe(0);
    for (const file of planned.files) {
      expect(file.mode).toBe('0600');
      expect(readFileSync(join(parent, 'evidence', file.path), 'utf8')).toBe(file.content);
    }
  });

  it('regression: --dry-run refuses every --out the real run refuses, with the same code, writing nothing', () => {
    const parent = workDir();
    mkdirSync(join(parent, 'full'));
    writeFileSync(join(parent, 'full', 'mapping.json'), '{}\n');
    mkdirSync(join(parent, 'empty'));
    writeFileSync(join(parent, 'file'), 'kept\n');
    symlinkSync(join(parent, 'nowhere'), join(parent, 'dangling'));
    symlinkSync(join(parent, 'empty'), join(parent, 'alias'));
    const cases = [
      ['full', 'evidence_synth_output_exists'],
      ['empty', 'evidence_synth_output_exists'],
      ['file', 'evidence_synth_output_exists'],
      ['dangling', 'evidence_synth_output_exists'],
      ['absent/evidence', 'evidence_synth_parent_missing'],
      ['file/evidence', 'evidence_synth_parent_missing'],
      ['alias/evidence', 'evidence_synth_parent_unsafe'],
      ['full/..', 'evidence_synth_option_invalid'],
    ] as const;
    const before = snapshotTree(parent);
    for (const [out, code] of cases) {
      const args = [
        'evidence',
        'synth',
        '--out',
        out,
        '--source',
        'sql',
        '--destination',
        'bigquery',
        '--json',
      ];
      const dry = runCli([...args, '--dry-run'], { cwd: parent });
      const real = runCli(args, { cwd: parent });
      expect({ out, dry: dry.status, real: real.status }).toEqual({ out, dry: 2, real: 2 });
      expect(JSON.parse(dry.stdout.toString())).toMatchObject({ status: 'refused', reason_code: code });
      expect(JSON.parse(real.stdout.toString())).toMatchObject({ status: 'refused', reason_code: code });
      expect(snapshotTree(parent)).toEqual(before);
    }
  });

  it('regression: a parent that is a file is not said to be missing only', () => {
    const parent = workDir();
    writeFileSync(join(parent, 'notadir'), 'kept\n');
    const run = runCli(
      ['evidence', 'synth', '--out', 'notadir/ev', '--source', 'sql', '--destination', 'bigquery'],
      {
        cwd: parent,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr.toString()).toBe(
      'error[evidence_synth_parent_missing]: the directory that should hold the synthetic evidence directory does not exist, or is not a directory\n',
    );
  });

  it.each([
    ['--out', ''],
    ['--out=', undefined],
  ])(
    'regression: %s with an empty value is a usage error naming the flag, with or without --dry-run',
    (flag, value) => {
      const parent = workDir();
      for (const extra of [[], ['--dry-run']]) {
        const run = runCli(
          [
            'evidence',
            'synth',
            flag,
            ...(value === undefined ? [] : [value]),
            '--source',
            'sql',
            '--destination',
            'bigquery',
            ...extra,
          ],
          { cwd: parent },
        );
        expect(run.status).toBe(1);
        expect(run.stderr.toString().split('\n')[0]).toMatch(
          /^sealkit: --out takes a value, not an empty string: --out [A-Z]+$/,
        );
        expect(readdirSync(parent)).toEqual([]);
      }
    },
  );

  it('regression: an --out ending in .. is refused naming the option (field out), dry run or not', () => {
    const parent = workDir();
    mkdirSync(join(parent, 'ev2'));
    const args = ['evidence', 'synth', '--out', 'ev2/..', '--source', 'sql', '--destination', 'bigquery'];
    for (const extra of [[], ['--dry-run']]) {
      const human = runCli([...args, ...extra], { cwd: parent });
      expect({ status: human.status, stderr: human.stderr.toString() }).toEqual({
        status: 2,
        stderr:
          'error[evidence_synth_option_invalid]: a synthetic evidence option is outside its allowed values\n' +
          '  = field: out\n',
      });
      const json = runCli([...args, ...extra, '--json'], { cwd: parent });
      expect(JSON.parse(json.stdout.toString())).toMatchObject({
        reason_code: 'evidence_synth_option_invalid',
        field: 'out',
      });
    }
    expect(readdirSync(parent)).toEqual(['ev2']);
  });

  it('takes an --out holding U+FFFD typed as UTF-8: it is valid text', () => {
    const parent = workDir();
    const run = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'bin', 'sealkit.js'),
        'evidence',
        'synth',
        '--out',
        'ev\uFFFD',
        '--source',
        'sql',
        '--destination',
        'bigquery',
      ],
      { cwd: parent },
    );
    expect(run.status).toBe(0);
    expect(readdirSync(parent)).toEqual(['ev\uFFFD']);
  });

  it('regression: an --out with bytes that are not UTF-8 is a usage error, not a folder named with U+FFFD', () => {
    const parent = workDir();
    // Node encodes the arguments it passes as UTF-8; the shell passes the byte 0xff as it is.
    const script = `bin="$1"; shift; exec "$0" "$bin" evidence synth --out "$(printf 'ev\\377')" --source sql --destination bigquery "$@"`;
    for (const extra of [[], ['--dry-run']]) {
      const run = spawnSync(
        'sh',
        ['-c', script, process.execPath, join(REPO_ROOT, 'bin', 'sealkit.js'), ...extra],
        {
          cwd: parent,
        },
      );
      expect({ status: run.status, first: run.stderr.toString().split('\n')[0] }).toEqual({
        status: 1,
        first:
          "sealkit: --out 'ev\\xff' holds bytes that are not UTF-8 (shown as \\xNN); sealkit takes only paths named in UTF-8",
      });
    }
    expect(readdirSync(parent)).toEqual([]);
  });

  it.each([
    [
      'a parent folder you may not write in',
      'locked/evidence',
      'evidence_synth_parent_not_writable',
      'the directory that should hold the synthetic evidence directory is not writable by you, or you may not enter it or a folder above it (their permissions, or a read-only filesystem)',
      undefined,
    ],
    [
      'a name too long to stage',
      'x'.repeat(224),
      'evidence_synth_name_too_long',
      'the synthetic evidence directory name is too long: with the staging suffix it gets while written, it exceeds 255 bytes',
      'out',
    ],
  ])(
    'regression: %s is refused with its own code, and the dry run predicts it',
    (_name, out, code, message, field) => {
      const parent = workDir();
      mkdirSync(join(parent, 'locked'), { mode: 0o500 });
      const before = snapshotTree(parent);
      const args = ['evidence', 'synth', '--out', out, '--source', 'sql', '--destination', 'bigquery'];
      for (const extra of [[], ['--dry-run']]) {
        const run = runCli([...args, ...extra], { cwd: parent });
        expect({ status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() }).toEqual({
          status: 2,
          stdout: '',
          stderr: `error[${code}]: ${message}\n${field === undefined ? '' : `  = field: ${field}\n`}`,
        });
        expect(scanForSentinels(run, [], [parent, 'xxxxxxxx', 'locked'])).toEqual([]);
      }
      expect(snapshotTree(parent)).toEqual(before);
    },
  );

  it.each([
    ['a parent you may read but not enter (0600)', 'noentry/evidence'],
    ['a parent you may not open at all (0000)', 'closed/evidence'],
    ['a folder above the parent you may not enter', 'noentry/inner/evidence'],
  ])('regression: %s is evidence_synth_parent_not_writable, in a dry run too', (_name, out) => {
    const parent = workDir();
    mkdirSync(join(parent, 'noentry', 'inner'), { recursive: true });
    mkdirSync(join(parent, 'closed'));
    chmodSync(join(parent, 'noentry'), 0o600);
    chmodSync(join(parent, 'closed'), 0o000);
    try {
      const args = ['evidence', 'synth', '--out', out, '--source', 'sql', '--destination', 'bigquery'];
      for (const extra of [[], ['--dry-run']]) {
        const run = runCli([...args, ...extra], { cwd: parent });
        expect({ status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() }).toEqual({
          status: 2,
          stdout: '',
          stderr: `error[evidence_synth_parent_not_writable]: ${PARENT_NOT_WRITABLE}\n`,
        });
        const json = runCli([...args, ...extra, '--json'], { cwd: parent });
        expect(JSON.parse(json.stdout.toString())).toMatchObject({
          status: 'refused',
          reason_code: 'evidence_synth_parent_not_writable',
        });
        for (const r of [run, json])
          expect(scanForSentinels(r, [], [parent, 'noentry', 'closed'])).toEqual([]);
      }
    } finally {
      chmodSync(join(parent, 'noentry'), 0o700);
      chmodSync(join(parent, 'closed'), 0o700);
    }
    expect(snapshotTree(parent)).toEqual(
      new Map([
        ['closed', 'dir 700'],
        ['noentry', 'dir 700'],
        ['noentry/inner', `dir ${(statSync(join(parent, 'noentry', 'inner')).mode & 0o7777).toString(8)}`],
      ]),
    );
  });

  it('refuses an existing directory with exit 2 and keeps it', () => {
    const parent = workDir();
    const args = [
      'evidence',
      'synth',
      '--out',
      join(parent, 'evidence'),
      '--source',
      'sql',
      '--destination',
      'bigquery',
    ];
    expect(runCli(args).status).toBe(0);
    const again = runCli([...args, '--json']);
    expect(again.status).toBe(2);
    expect(JSON.parse(again.stdout.toString())).toMatchObject({
      reason_code: 'evidence_synth_output_exists',
    });
    expect(scanForSentinels(again, [], [parent])).toEqual([]);
  });

  it('regression: --help names every file it writes, the Bronze fixtures too', () => {
    const help = runCli(['evidence', 'synth', '--help']).stdout.toString();
    const evidence = synth();
    const written = [...snapshotTree(evidence.out)]
      .filter(([, entry]) => entry.startsWith('file '))
      .map(([path]) =>
        path
          .replace(/^run-manifests\/[0-9a-f-]+\.json$/, 'run-manifests/<run_id>.json')
          .replace(
            /^fixtures\/migration_bronze\/[a-z_]+\.csv$/,
            'fixtures/migration_bronze/<bronze_table>.csv',
          ),
      );
    expect([...new Set(written)].filter((path) => !help.includes(path))).toEqual([]);
    expect(written).toContain('fixtures/migration_bronze/<bronze_table>.csv');
  });

  it('treats missing or invalid options as usage errors', () => {
    const out = join(workDir(), 'evidence');
    for (const args of [
      ['--source', 'sql', '--destination', 'bigquery'],
      ['--out', out, '--destination', 'bigquery'],
      ['--out', out, '--source', 'parquet', '--destination', 'bigquery'],
      ['--out', out, '--source', 'sql', '--destination', 'redshift'],
      ['--out', out, '--source', 'sql', '--destination', 'bigquery', '--tables', 'customers,invoices'],
      ['--out', out, '--source', 'sql', '--destination', 'bigquery', '--seed', 'x'],
      ['--out', out, '--source', 'sql', '--destination', 'bigquery', '--finished-at', 'yesterday'],
      ['--out', out, '--source', 'sql', '--destination', 'bigquery', '--source-binding-id', 'Bad-Alias'],
    ]) {
      expect(runCli(['evidence', 'synth', ...args]).status).toBe(1);
    }
    expect(() => readdirSync(out)).toThrow();
  });
});

describe('sealkit evidence synth, stopped by a real signal', () => {
  // The built CLI in a process of its own, paused by SEALKIT_SYNTH_FAULTS at a
  // step boundary; the test sends the signal while it waits there.
  const MESSAGE =
    'writing the synthetic evidence was interrupted by a signal; what this run staged was removed and nothing was published';
  /** A parent folder that already holds entries of its own, which no run may touch. */
  function parentWithEntries(): string {
    const parent = workDir();
    mkdirSync(join(parent, 'older-evidence'));
    writeFileSync(join(parent, 'older-evidence', 'mapping.json'), '{}\n');
    writeFileSync(join(parent, 'notes.txt'), 'kept\n');
    return parent;
  }
  const ARGS = [
    'evidence',
    'synth',
    '--out',
    'acme_private_out',
    '--source',
    'sql',
    '--destination',
    'bigquery',
  ];

  it.each([
    ['after_preflight#1', 'SIGTERM', 143, false],
    ['after_staging#1', 'SIGINT', 130, true],
    ['after_dir#2', 'SIGTERM', 143, true],
    ['after_file#3', 'SIGINT', 130, true],
    ['after_fsync#1', 'SIGTERM', 143, true],
    ['before_rename#1', 'SIGINT', 130, true],
  ] as const)(
    'regression: at %s, %s removes what the run staged, leaves the parent as it was and exits %i',
    async (point, signal, exit, staged) => {
      const parent = parentWithEntries();
      const before = snapshotTree(parent);
      const child = new CliChild(ARGS, { cwd: parent, env: { SEALKIT_SYNTH_FAULTS: `pause@${point}` } });
      await child.paused(point);
      const staging = readdirSync(parent).filter((name) => name.includes('.sealkit-synth-'));
      expect(staging).toHaveLength(staged ? 1 : 0);
      child.kill(signal);
      const outcome = await child.exited();
      expect(outcome.status).toBe(exit);
      expect(outcome.stdout).toBe('');
      // A private domain's refusal: the code and its message, never the output path.
      expect(outcome.stderr).toBe(
        `sealkit evidence synth fault: paused at ${point}\nerror[evidence_synth_interrupted]: ${MESSAGE}\n`,
      );
      expect(snapshotTree(parent)).toEqual(before);
    },
    30_000,
  );

  it('regression: with --json the interruption is one refusal object on stdout, without the path', async () => {
    const parent = parentWithEntries();
    const before = snapshotTree(parent);
    const child = new CliChild([...ARGS, '--json'], {
      cwd: parent,
      env: { SEALKIT_SYNTH_FAULTS: 'pause@after_file#1' },
    });
    await child.paused('after_file#1');
    child.kill('SIGINT');
    const outcome = await child.exited();
    expect(outcome.status).toBe(130);
    expect(JSON.parse(outcome.stdout)).toEqual({
      status: 'refused',
      reason_code: 'evidence_synth_interrupted',
      category: 'unavailable',
      message: MESSAGE,
    });
    expect(outcome.stderr).toBe('sealkit evidence synth fault: paused at after_file#1\n');
    expect(snapshotTree(parent)).toEqual(before);
  }, 30_000);

  it('regression: a signal after the publication changes nothing: the evidence stays and the exit is 0', async () => {
    const parent = parentWithEntries();
    const child = new CliChild(ARGS, { cwd: parent, env: { SEALKIT_SYNTH_FAULTS: 'pause@after_result' } });
    await child.paused('after_result#1');
    child.kill('SIGTERM');
    await child.stderrHas('sealkit: SIGTERM came after the evidence was published; the result stands\n');
    const outcome = await child.finished();
    expect(outcome.status).toBe(0);
    expect(outcome.signal).toBeNull();
    expect(outcome.stdout).toContain('wrote SYNTHETIC evidence');
    expect(readdirSync(join(parent, 'acme_private_out')).sort()).toEqual([
      'dry-run.json',
      'fixtures',
      'mapping.json',
      'run-manifests',
    ]);
  }, 30_000);

  it('removes what it staged when a step fails, and refuses with evidence_synth_write_failed', () => {
    const parent = parentWithEntries();
    const before = snapshotTree(parent);
    const run = runCli(ARGS, {
      cwd: parent,
      env: { ...process.env, SEALKIT_SYNTH_FAULTS: 'fail@after_file#2' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr.toString()).toBe(
      'error[evidence_synth_write_failed]: the synthetic evidence could not be written; nothing was published\n',
    );
    expect(snapshotTree(parent)).toEqual(before);
  });

  it('is a usage error (exit 1) naming the variable and the rule when a rule cannot be read', () => {
    const parent = parentWithEntries();
    const before = snapshotTree(parent);
    const run = runCli(ARGS, {
      cwd: parent,
      env: { ...process.env, SEALKIT_SYNTH_FAULTS: 'pause@after_lunch' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.toString().split('\n')[0]).toContain(
      "invalid rule 'pause@after_lunch' in SEALKIT_SYNTH_FAULTS",
    );
    expect(snapshotTree(parent)).toEqual(before);
  });
});
