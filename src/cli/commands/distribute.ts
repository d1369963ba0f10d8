import type { Refusal } from '../../core/refusal/index.js';
import {
  DISTRIBUTE_OUTCOMES,
  distributeReportRefusals,
  distributeRun,
  type ItemOutcome,
  type PlanItem,
  type RunReport,
  verifyBundle,
  writeManifest,
} from '../../distributor/index.js';
import type { CliIo, Command, CommandResult } from '../command.js';
import { counted, formatRefusal, type JsonObjectOut, refusalJson } from '../output.js';
import { parseCommandArgs } from '../parse.js';
import { UsageError } from '../usage-error.js';

const RUN_USAGE = `Usage: sealkit distribute run [--config FILE] [--pipeline ID] [--dry-run]
                            [--fail-on-skipped-newer] [-q] [--json]

Publishes every manifested report bundle under each pipeline's source root to
its destinations (local directories, S3-compatible storage). Every bundle of
the run is validated (paths, sizes, SHA-256, bundle digest) before anything is
written; one failure writes nothing. Per bundle and destination the outcome is
published, replaced, skipped_same, skipped_newer, conflict or refused. The
report goes to stdout; every refusal, with where it is, to stderr.

Flags:
  --config FILE   configuration (default sealkit.distributor.yaml)
  --pipeline ID   run only this pipeline
  --dry-run       print the plan a real run would apply; write nothing
  --fail-on-skipped-newer
                  exit 2 when a bundle is skipped_newer (the destination holds a
                  newer publication than the source), for CI jobs that must not
                  miss it
  -q, --quiet     print no report and no progress; refusals still go to stderr
  --json          print one JSON object with every outcome (and the plan)
  -h, --help      show this help

Exit codes: 0 every outcome published, replaced or skipped; 1 usage error;
2 a conflict, a refusal, or a refused configuration; 70 internal error.

Examples:
  sealkit distribute run --dry-run
  sealkit distribute run
  sealkit distribute run --config /etc/sealkit/reports.yaml --pipeline weekly --json
  sealkit distribute run --quiet --fail-on-skipped-newer`;

const VERIFY_USAGE = `Usage: sealkit distribute verify BUNDLE_DIR [--source] [--html] [--json]

Validates one source bundle in place: manifest.json, every path, each file's
size and SHA-256, the bundle digest, and no nested manifest, symbolic link or
special file. With the outputs a destination receives (--source, --html) it
also checks what a run would check when planning that destination: every .md
file renders (UTF-8, at most 8 MiB) and no page collides with a copied file.
Writes nothing. Every independent failure is reported, each with the file it
concerns (exit 2).

Flags:
  --source        check as for a destination with outputs.source: true
  --html          check as for a destination with outputs.html: true (render
                  every .md file; with --source, no page may collide with a file)
  --json          print one JSON object on stdout
  -h, --help      show this help

Exit codes: 0 valid, 1 usage error, 2 refused, 70 internal error.

Examples:
  sealkit distribute verify reports/weather/2026-05-30
  sealkit distribute verify reports/weather/2026-05-30 --source --html
  sealkit distribute verify reports/weather/2026-05-30 --json`;

const MANIFEST_USAGE = `Usage: sealkit distribute manifest BUNDLE_DIR --id ID [--created RFC3339] [--json]

Writes BUNDLE_DIR/manifest.json for a producer: every regular file below the
directory, sorted by path, with its size and SHA-256, and the bundle digest.
--created defaults to now (UTC). An existing manifest.json is never replaced.

Flags:
  --id ID             the bundle id (required), e.g. weather.2026-05-30
  --created RFC3339   when the bundle was produced (default: now, UTC)
  --json              print one JSON object on stdout
  -h, --help          show this help

Exit codes: 0 written, 1 usage error, 2 refused, 70 internal error.

Examples:
  sealkit distribute manifest reports/weather/2026-05-30 --id weather.2026-05-30
  sealkit distribute manifest reports/weather/2026-05-30 --id weather.2026-05-30 --created 2026-05-30T11:10:00Z`;

const RUN_OPTIONS = {
  config: { type: 'string' },
  pipeline: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'fail-on-skipped-newer': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const distributeRunCommand: Command = {
  path: ['distribute', 'run'],
  usage: RUN_USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values } = parseCommandArgs(args, RUN_OPTIONS, RUN_USAGE, { min: 0, max: 0 });
    const quiet = values.quiet === true;
    const progress = quiet ? undefined : progressPrinter(io);
    const report = await distributeRun({
      ...(values.config === undefined ? {} : { configPath: values.config }),
      ...(values.pipeline === undefined ? {} : { pipeline: values.pipeline }),
      dryRun: values['dry-run'] === true,
      ...(progress === undefined ? {} : { onProgress: progress }),
    });
    if (progress !== undefined) io.stderr.write('\n');
    const errors = distributeReportRefusals(report)
      .map((refusal) => formatRefusal(refusal, 'located'))
      .join('');
    // A destination newer than the source is not an error by default (the
    // source may be stale on purpose); a CI job can make it one.
    const newer = report.counts.skipped_newer;
    const failOnNewer = values['fail-on-skipped-newer'] === true && newer > 0;
    const newerNotice = failOnNewer
      ? `error[skipped_newer]: ${newer === 1 ? '1 bundle was' : `${newer} bundles were`} not published because the destination holds a newer publication, and --fail-on-skipped-newer asks for none\n`
      : '';
    const allErrors = errors + newerNotice;
    return {
      text: quiet ? '' : report.dry_run ? planText(report) : summaryText(report),
      json: { ...reportJson(report), ...(failOnNewer ? { unmet: ['skipped_newer'] } : {}) },
      ...(allErrors === '' ? {} : { errors: allErrors }),
      refused: report.status !== 'ok' || failOnNewer,
    };
  },
};

export const distributeVerifyCommand: Command = {
  path: ['distribute', 'verify'],
  usage: VERIFY_USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        source: { type: 'boolean' },
        html: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      VERIFY_USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireDir(positionals[0], VERIFY_USAGE);
    const selected = values.source === true || values.html === true;
    const outputs = { source: values.source === true, html: values.html === true };
    const verified = verifyBundle(dir, selected ? { outputs } : {});
    const pages = outputs.html ? `, ${counted(verified.pages, 'page')} rendered` : '';
    return {
      text: `valid: ${counted(verified.files, 'file')}, ${counted(verified.bytes, 'byte')}${pages}, digest ${verified.manifest.digest}\n`,
      json: {
        status: 'ok',
        id: verified.manifest.id,
        created: verified.manifest.created,
        digest: verified.manifest.digest,
        files: verified.files,
        bytes: verified.bytes,
        ...(selected ? { outputs, pages: verified.pages } : {}),
      },
    };
  },
};

export const distributeManifestCommand: Command = {
  path: ['distribute', 'manifest'],
  usage: MANIFEST_USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        id: { type: 'string' },
        created: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      MANIFEST_USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireDir(positionals[0], MANIFEST_USAGE);
    if (values.id === undefined) throw usage('missing option --id', MANIFEST_USAGE);
    const manifest = writeManifest(dir, {
      id: values.id,
      ...(values.created === undefined ? {} : { created: values.created }),
    });
    const bytes = manifest.files.reduce((sum, file) => sum + file.size, 0);
    return {
      text: `wrote manifest.json: ${counted(manifest.files.length, 'file')}, ${counted(bytes, 'byte')}, digest ${manifest.digest}\n`,
      json: {
        status: 'ok',
        id: manifest.id,
        created: manifest.created,
        digest: manifest.digest,
        files: manifest.files.length,
        bytes,
      },
    };
  },
};

function requireDir(value: string | undefined, text: string): string {
  if (value === undefined || value.length === 0) throw usage('missing argument', text);
  return value;
}

function usage(message: string, text: string): UsageError {
  return new UsageError(message, text);
}

/** Progress goes to stderr, only on a terminal: pipes and --json consumers see the report alone. */
function progressPrinter(
  io: CliIo,
): ((event: { phase: string; done: number; total: number }) => void) | undefined {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return undefined;
  return (event) =>
    io.stderr.write(`\r\u001b[2Ksealkit distribute: ${event.phase} ${event.done}/${event.total}`);
}

function table(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function countsLine(report: RunReport): string {
  return DISTRIBUTE_OUTCOMES.map((outcome) => `${report.counts[outcome]} ${outcome}`).join(', ');
}

/** The report as printed under `--json`: each refusal's location and hint beside its reason code. */
function reportJson(report: RunReport): JsonObjectOut {
  const where = (refusal: Refusal | undefined): JsonObjectOut => {
    if (refusal === undefined) return {};
    const { location, hint, details, also, omitted } = refusalJson(refusal, 'located');
    return {
      ...(location === undefined ? {} : { location }),
      ...(hint === undefined ? {} : { hint }),
      ...(details === undefined ? {} : { details: details as unknown as JsonObjectOut }),
      ...(also === undefined ? {} : { also: also as unknown as JsonObjectOut[] }),
      ...(omitted === undefined ? {} : { omitted }),
    };
  };
  const failures = report.failures.map(({ refusal, ...failure }) => ({ ...failure, ...where(refusal) }));
  return {
    ...(report as unknown as JsonObjectOut),
    failures,
    outcomes: report.outcomes.map(({ refusal, ...item }) => ({ ...item, ...where(refusal) })),
    plan: { ...(report.plan as unknown as JsonObjectOut), failures },
  };
}

function failuresText(report: RunReport): string {
  if (!report.aborted) return '';
  return 'run aborted before any write (the refusals are on stderr)\n\n';
}

function summaryText(report: RunReport): string {
  const rows = [
    ['PIPELINE', 'DESTINATION', 'BUNDLE', 'OUTCOME', 'REASON'],
    ...report.outcomes.map((item: ItemOutcome) => [
      item.pipeline_id,
      item.destination_id,
      item.bundle_dir,
      item.outcome,
      item.reason_code ?? '',
    ]),
  ];
  return `${failuresText(report)}${table(rows)}\n\nsummary: ${countsLine(report)}\n`;
}

function planText(report: RunReport): string {
  const lines = ['dry run: the plan a real run would apply (nothing written)', ''];
  for (const item of report.plan.items) lines.push(...planItemLines(item));
  return `${failuresText(report)}${lines.join('\n')}\n\nwould be: ${countsLine(report)}\n`;
}

function planItemLines(item: PlanItem): string[] {
  const where = `${item.pipeline_id} -> ${item.destination_id}: ${item.bundle_dir}`;
  switch (item.action) {
    case 'publish':
    case 'replace': {
      const lines = [`${item.action} ${where}`];
      for (const output of item.outputs)
        lines.push(`  write ${output.path} (${output.kind}, ${output.size} bytes)`);
      lines.push('  write .distributor.json (last)');
      for (const path of item.previous?.outputs ?? []) lines.push(`  delete old ${path}`);
      return lines;
    }
    case 'skip_same':
    case 'skip_newer':
      return [`${item.action} ${where}`];
    case 'conflict':
    case 'refuse':
      return [`${item.action} ${where} (${item.reason_code})`];
  }
}
