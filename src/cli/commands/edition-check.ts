import { didYouMean, MAX_REPORTED_ERRORS, oneLine, Refusal } from '../../core/refusal/index.js';
import { type CheckReport, checkProject, type Finding, orderedFindings } from '../../editions/index.js';
import type { Command, CommandResult } from '../command.js';
import { counted, formatRefusal, jsonOut, progress } from '../output.js';
import { nonEmptyOption, parseCommandArgs, requireArgument, textOption } from '../parse.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  target: { type: 'string' },
  vars: { type: 'string' },
  fixtures: { type: 'string', multiple: true },
  'require-tests': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const TARGETS = ['default', 'migration'] as const;

const USAGE = `Usage: sealkit edition check PROJECT_DIR [--target default|migration] [--vars YAML]
                             [--fixtures DIR]... [--require-tests] [-q] [--json]

The offline stand-in for \`dbt parse\` on a dbt project of the starter editions,
with no dbt and no warehouse:
  1. validates dbt_project.yml and every properties YAML against dbt's JSON schemas;
  2. resolves which models and sources are enabled for the target and vars
     (enabled configs, +enabled in dbt_project.yml, the migration gate) and
     lists them as dbt ls would;
  3. renders every model's Jinja (ref, source, config, var, env_var,
     adapter.dispatch to duckdb__ implementations), failing on an undefined
     ref, source, macro or variable;
  4. parses every rendered SQL with DuckDB;
  5. with --fixtures DIR (<source>/<table>.csv per Bronze table): loads them
     into an in-memory DuckDB, builds the models in dependency order and runs
     the schema tests (not_null, unique, relationships, accepted_values) and
     the singular tests of the test paths (tests/*.sql: rendered and parsed
     like models, with or without fixtures; a test passes when its query
     returns no rows).

Flags:
  --target NAME    default (the default) or migration
  --vars YAML      a YAML mapping, e.g. '{enable_migration_models: true}'
  --fixtures DIR   Bronze fixture CSVs to build and test on; repeatable: a table of a
                   later folder replaces the same table of an earlier one
  --require-tests  fail (status failed, exit 2) when tests were not run
                   (no --fixtures); a CI job then cannot pass a check whose
                   tests never ran
  -q, --quiet      print no report, no progress and no note: nothing on a pass;
                   findings still go to stderr
  --json           print one JSON object on stdout
  -h, --help       show this help

env_var() reads the environment (e.g. MIGRATION_BRONZE_NAMESPACE); its values
are used, never printed. A pass is local evidence only: warehouse behaviour of
casts is not verified.

The report goes to stdout; every finding, with its file, line and column,
goes to stderr (the first ${MAX_REPORTED_ERRORS}, then a count).

Exit codes: 0 everything passed, 2 a check failed (the report says which) or
the input was refused (with a reason code), 1 usage error, 70 internal error.

Examples:
  sealkit edition check acme-retail
  sealkit edition check acme-retail --fixtures acme-retail/fixtures --require-tests
  sealkit edition check acme-retail --target migration --vars '{enable_migration_models: true}' --json
  sealkit edition check acme-retail --target migration --vars '{enable_migration_models: true}' --fixtures acme-retail/fixtures --fixtures evidence/fixtures`;

export const editionCheck: Command = {
  path: ['edition', 'check'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 1 });
    // An empty value names nothing: never passed on as the current folder or as no vars.
    const projectDir = requireArgument(positionals[0], 'PROJECT_DIR', USAGE);
    const fixtures = nonEmptyOption(values.fixtures, '--fixtures', USAGE);
    for (const folder of fixtures ?? []) textOption(folder, '--fixtures', USAGE);
    const vars = nonEmptyOption(values.vars, '--vars', USAGE);
    const target = values.target ?? 'default';
    if (!(TARGETS as readonly string[]).includes(target)) {
      const near = didYouMean(target, TARGETS);
      throw new UsageError(`--target takes default or migration, not '${target}'`, USAGE, {
        ...(near === undefined ? {} : { hint: near }),
      });
    }
    const quiet = values.quiet === true;
    if (!quiet) {
      progress(
        io,
        `checking ${projectDir}${fixtures === undefined ? '' : ', building its models on DuckDB'}…`,
      );
    }
    const { report } = await checkProject(projectDir, {
      target,
      env: process.env,
      ...(vars === undefined ? {} : { vars }),
      ...(fixtures === undefined ? {} : { fixtures }),
    });
    // Tests that were planned but not run are not a pass a CI job may take
    // for one: they are said on stderr, and fail with --require-tests.
    const notRun = report.summary.tests_not_run;
    const requireTests = values['require-tests'] === true;
    const unmet = requireTests && notRun > 0;
    // A failed check already says what to fix first; the notice is for a check
    // that would otherwise read as a pass. A quiet pass prints nothing at all,
    // or a cron job mails the note on every run: --require-tests is the way
    // to make it count.
    const notice =
      notRun === 0 || report.status === 'failed'
        ? ''
        : unmet
          ? `error[tests_not_run]: ${notRun} tests were not run (no --fixtures), and --require-tests asks for them\n`
          : quiet
            ? ''
            : `note: ${notRun} tests were not run (no --fixtures); --require-tests makes this exit 2\n`;
    const errors = formatFindings(report) + notReadNotes(report) + setAsideNote(report) + notice;
    // An unmet requirement fails the run: `status` must not read `passed`
    // to a CI job that looks at nothing else (docs/editions.md#exit-codes).
    const shown = unmet ? requirementUnmet(report) : report;
    return {
      text: quiet ? '' : formatReport(shown),
      json: jsonOut({
        status: shown.status,
        ...(unmet && report.status === 'passed'
          ? { reason_code: 'tests_not_run', message: TESTS_NOT_RUN_MESSAGE }
          : {}),
        ...withoutStatus(report),
        ...(unmet ? { unmet: ['tests_not_run'] } : {}),
      }),
      ...(errors === '' ? {} : { errors }),
      refused: shown.status === 'failed',
    };
  },
};

/** The fixed message of the `tests_not_run` requirement, beside the count on stderr. */
export const TESTS_NOT_RUN_MESSAGE = 'tests were not run (no --fixtures), and --require-tests asks for them';

/** The report of a check whose requirement (--require-tests) is unmet: failed, whatever its items say. */
function requirementUnmet(report: CheckReport): CheckReport {
  return { ...report, status: 'failed' };
}

function withoutStatus(report: CheckReport): Omit<CheckReport, 'status'> {
  const { status: _status, ...rest } = report;
  return rest;
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  }
  return rows.map((row) =>
    `  ${row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join('  ')}`.trimEnd(),
  );
}

function findingText(item: { readonly finding?: Finding }): string {
  return item.finding === undefined ? '' : item.finding.reason_code;
}

/** Every finding of the report in the order to read them: see orderedFindings (docs/editions.md). */
export function reportFindings(report: CheckReport): readonly Finding[] {
  return orderedFindings(report);
}

const MAX_SHOWN_VALUE = 60;

/** One failing row on one line: `order_id='O-1', n_records=2` (long text cut, control characters escaped). */
export function formatRow(row: Readonly<Record<string, string | number | boolean | null>>): string {
  return Object.entries(row)
    .map(([column, value]) => {
      if (value === null) return `${column}=NULL`;
      if (typeof value !== 'string') return `${column}=${String(value)}`;
      const cut = value.length > MAX_SHOWN_VALUE ? `${value.slice(0, MAX_SHOWN_VALUE - 1)}…` : value;
      return `${column}='${oneLine(cut)}'`;
    })
    .join(', ');
}

/**
 * The findings in the one refusal format (docs/editions.md#reading-an-error),
 * for stderr: each names its file as found under PROJECT_DIR, with line and
 * column when known, the hint, DuckDB's message and failing rows.
 */
export function formatFindings(report: CheckReport): string {
  const findings = reportFindings(report);
  const blocks = findings.slice(0, MAX_REPORTED_ERRORS).map((found) => {
    const shown = new Refusal(
      found.reason_code,
      { category: 'mismatched', message: found.message },
      {
        ...(found.location === undefined ? {} : { location: found.location }),
        ...(found.hint === undefined ? {} : { hint: found.hint }),
      },
    );
    const extra = [
      ...(found.detail === undefined ? [] : [`  = duckdb: ${oneLine(found.detail)}`]),
      ...(found.failing_rows ?? []).map((row) => `  = row: ${formatRow(row)}`),
    ];
    return `${formatRefusal(shown, 'located')}${extra.map((line) => `${line}\n`).join('')}`;
  });
  const omitted = findings.length - blocks.length;
  if (omitted > 0) blocks.push(`... and ${omitted} more ${omitted === 1 ? 'finding' : 'findings'}\n`);
  return blocks.join('');
}

/** The tests of properties files dbt's schema refuses, none of them in the summary's count. */
function notRead(report: CheckReport): { readonly tests: number; readonly files: number } {
  const files = report.files.filter((file) => (file.tests_not_read ?? 0) > 0);
  return { tests: files.reduce((sum, file) => sum + (file.tests_not_read ?? 0), 0), files: files.length };
}

function notReadSummary(report: CheckReport): string {
  const { tests, files } = notRead(report);
  return tests === 0 ? '' : ` (and ${counted(tests, 'test')} in ${counted(files, 'invalid file')}, not read)`;
}

/**
 * One note per properties file whose tests were left out, on stderr after
 * the findings: how many, which file, and where its first schema error is.
 */
function notReadNotes(report: CheckReport): string {
  return report.files
    .filter((file) => (file.tests_not_read ?? 0) > 0)
    .map((file) => {
      const where = file.finding?.location;
      const at =
        where?.line === undefined
          ? ''
          : ` (first error at line ${where.line}${where.column === undefined ? '' : `, column ${where.column}`})`;
      const count = file.tests_not_read ?? 0;
      return `note: ${counted(count, 'test')} written in ${where?.path ?? file.path} ${count === 1 ? 'was' : 'were'} not run: ${file.finding?.reason_code === 'tests_and_data_tests' ? 'dbt refuses' : "dbt's schema refuses"} the file${at}; fix it and check again\n`;
    })
    .join('');
}

/**
 * The fixtures set aside because a properties file was not read (the sources
 * they load may be defined there), after the findings on stderr.
 */
function setAsideNote(report: CheckReport): string {
  const paths = report.fixtures_not_loaded ?? [];
  if (paths.length === 0) return '';
  const unread = report.files.filter((file) => file.kind === 'properties' && file.status === 'invalid');
  const files = unread.map((file) => file.finding?.location?.path ?? file.path).join(', ');
  return `note: ${counted(paths.length, 'fixture file')} ${paths.length === 1 ? 'was' : 'were'} not loaded (${paths.join(', ')}): no source that was read defines ${paths.length === 1 ? 'its table' : 'their tables'}, and ${files} ${unread.length === 1 ? 'was' : 'were'} not read; fix ${unread.length === 1 ? 'it' : 'them'} and check again\n`;
}

/** The human report: files, sources, models and tests, one line each, then the summary. */
export function formatReport(report: CheckReport): string {
  const lines: string[] = [
    `edition check: project ${report.project}, target ${report.target}, ${report.fixtures ? 'with fixtures' : 'no fixtures (tests not run)'}`,
    '',
    'files',
    ...table(
      report.files.map((file) => [
        file.status,
        file.path,
        // Where each problem is goes to stderr; the rules dbt's schema names stay in --json.
        (file.also === undefined || file.also.length === 0
          ? findingText(file)
          : `${findingText(file)} and ${file.also.length} more`) +
          (file.tests_not_read === undefined ? '' : `; ${counted(file.tests_not_read, 'test')} not run`),
      ]),
    ),
    '',
    'sources',
    ...table(
      report.sources.map((source) => [
        source.status,
        source.name,
        source.fixture_rows === undefined ? '' : `${source.fixture_rows} fixture rows`,
        findingText(source),
      ]),
    ),
    '',
    'models',
    ...table([
      ['STATUS', 'MODEL', 'MATERIALIZED', 'ROWS', 'TAGS', 'FINDING'],
      ...report.models.map((model) => [
        model.status,
        model.fqn,
        model.materialized,
        model.rows === undefined ? '-' : String(model.rows),
        model.tags.join(',') || '-',
        findingText(model),
      ]),
    ]),
    '',
    'tests',
    ...table(
      report.tests.map((test) => [
        test.status,
        test.name,
        test.failures === undefined || test.failures === 0 ? '' : counted(test.failures, 'failing row'),
        findingText(test),
      ]),
    ),
    '',
    `enabled models (dbt ls): ${report.listed.length}`,
    ...report.listed.map((name) => `  ${name}`),
    '',
    `${report.status}: ${report.summary.models_enabled} models enabled, ${report.summary.models_disabled} disabled, ${report.summary.models_failed} failed; ` +
      `${report.summary.tests} tests: ${report.summary.tests_passed} passed, ${report.summary.tests_failed} failed, ${report.summary.tests_not_run} not run${notReadSummary(report)}; ` +
      `${report.summary.files} files, ${report.summary.files_invalid} invalid`,
  ];
  return `${lines.join('\n')}\n`;
}
