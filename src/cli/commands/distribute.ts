import { basename, join, resolve } from 'node:path';
import { Refusal } from '../../core/refusal/index.js';
import { shellWord } from '../../core/shell/index.js';
import {
  bundleIdProblem,
  climbsAboveRoot,
  compareInstants,
  DISTRIBUTE_OUTCOMES,
  distributeReportRefusals,
  distributeRun,
  type Instant,
  type ItemOutcome,
  type LateFilesBundle,
  type LinkProblem,
  type LinkWarning,
  MANIFEST_EXCLUDE_OPTION,
  MANIFEST_REPLACE_OPTION,
  MAX_TRANSFERS,
  type PipelinePlan,
  type PlanItem,
  type ProgressEvent,
  parseRfc3339Instant,
  type RunReport,
  refuseDistributor,
  type UncheckedByDryRun,
  writeManifest,
} from '../../distributor/index.js';
import { escapedBytes } from '../argv-text.js';
import type { CliIo, Command, CommandResult } from '../command.js';
import { type FaultVariable, faultsFromVariable } from '../fault-hooks.js';
import { Interruption, interruptedBy, type StopSignal } from '../interruption.js';
import { counted, formatRefusal, type JsonObjectOut, jsonOut, refusalJson } from '../output.js';
import { nonEmptyOption, parseCommandArgs, pathOption, requireArgument } from '../parse.js';
import { quotedValue } from '../quote-value.js';
import { table } from '../table.js';
import { UsageError } from '../usage-error.js';

const RUN_USAGE = `Usage: sealkit distribute run [--config FILE] [--pipeline ID] [--dry-run]
                            [--checksum] [--wait SECONDS] [--transfers N]
                            [--fail-on-skipped-newer] [-q] [--json]

Publishes every manifested report bundle under each pipeline's source root to
its destinations (local directories, S3-compatible storage). Every bundle of
the run is validated (paths, sizes, SHA-256, bundle digest) before anything is
written; one failure writes nothing. Per bundle and destination the outcome is
published, replaced, skipped_same, skipped_newer, conflict or refused. The
report goes to stdout; every refusal, with where it is, to stderr (under
--json, both are in the one object on stdout). Under the report, notes name
what no run publishes: folders without manifest.json, files at a source
root, files written into a bundle after its manifest.

Flags:
  --config FILE   configuration (default sealkit.distributor.yaml)
  --pipeline ID   run only this pipeline
  --dry-run       print the plan a real run would apply; write nothing
  --checksum      compare what a destination holds with its .distributor.json
                  by content, not only size: read every published output of
                  the recorded size and compare its SHA-256 (one that differs
                  refuses the bundle destination_incomplete, nothing written);
                  with --dry-run, a read-only audit of what is published
  --wait SECONDS  wait up to SECONDS for a local destination or an S3 bundle
                  another sealkit run holds, instead of refusing it at once;
                  the report says how long it waited (default 0)
  --transfers N   S3 bundles written at once, 1 to 64 (default 16); local
                  destinations are written in group commits, one at a time
  --fail-on-skipped-newer
                  exit 2 when a bundle is skipped_newer (the destination holds a
                  newer publication than the source), for CI jobs that must not
                  miss it
  -q, --quiet     print no report and no progress; refusals, folders not
                  published for want of a manifest.json and files directly in
                  a source root still go to stderr
  --json          print one JSON object with every outcome (and the plan)
  -h, --help      show this help

Exit codes: 0 every outcome published, replaced or skipped; 1 usage error;
2 a conflict, a refusal, or a refused configuration; 70 internal error;
130 / 143 / 129 stopped by SIGINT / SIGTERM / SIGHUP: before the first write,
nothing is published (one run_interrupted refusal); after it, nothing new
starts and the report says which bundles were committed (the others are
run_interrupted). A signal after the last commit stops nothing: the report's
exit code stands.

Examples:
  sealkit distribute run --dry-run
  sealkit distribute run
  sealkit distribute run --dry-run --checksum
  sealkit distribute run --config /etc/sealkit/reports.yaml --pipeline weekly --json
  sealkit distribute run --wait 300
  sealkit distribute run --quiet --fail-on-skipped-newer
  sealkit distribute run --transfers 16`;

const VERIFY_USAGE = `Usage: sealkit distribute verify BUNDLE_DIR [--source] [--html] [--assets] [--json]

Validates one source bundle in place: manifest.json, every path, each file's
size and SHA-256, the bundle digest, and no nested manifest, symbolic link or
special file. With the outputs a destination receives (--source, --html,
--assets) it also checks what a run would check when planning that
destination: every .md file renders (UTF-8, at most 8 MiB) and no page
collides with a copied file; and it lists the links of the pages that would
point at a file such a destination does not hold (a warning, exit 0). Files
in the folder that the manifest does not list (hidden ones aside) are named:
no run publishes them. Writes nothing. Every independent failure is
reported, each with the file it concerns (exit 2).

Flags:
  --source        check as for a destination with outputs.source: true
  --html          check as for a destination with outputs.html: true (render
                  every .md file; with --source, no page may collide with a file)
  --assets        check as for a destination with outputs.assets: true
  --json          print one JSON object on stdout
  -h, --help      show this help

Exit codes: 0 valid, 1 usage error, 2 refused, 70 internal error.

Examples:
  sealkit distribute verify reports/weather/2026-05-30
  sealkit distribute verify reports/weather/2026-05-30 --source --html
  sealkit distribute verify reports/weather/2026-05-30 --html --assets
  sealkit distribute verify reports/weather/2026-05-30 --json`;

const MANIFEST_USAGE = `Usage: sealkit distribute manifest BUNDLE_DIR --id ID [--created RFC3339]
                                 [--include-hidden] [--exclude GLOB]... [--replace] [--dry-run] [--json]

Writes BUNDLE_DIR/manifest.json for a producer: every regular file below the
directory, sorted by path, with its size and SHA-256, and the bundle digest.
Hidden files and folders (a name starting with '.': .DS_Store, .git/,
.ipynb_checkpoints/) are left out unless --include-hidden; --exclude leaves
out what a glob matches. What was left out is listed. An existing
manifest.json is refused unless --replace, which rewrites it atomically.
--created defaults to now (UTC).

Flags:
  --id ID             the bundle id (required), e.g. weather.2026-05-30
  --created RFC3339   when the bundle was produced (default: now, UTC)
  --include-hidden    keep hidden files and folders
  --exclude GLOB      leave out what GLOB matches; repeatable. Without '/' it
                      matches a file or folder name at any depth ('*.tmp');
                      with '/' the path from BUNDLE_DIR ('data/raw/**'); a
                      trailing '/' matches folders only ('scratch/')
  --replace           rewrite an existing manifest.json (old or new, never a
                      partial file)
  --dry-run           list and hash every file, refuse what a real run would
                      refuse, print each file the manifest would list; write
                      nothing
  --json              print one JSON object on stdout
  -h, --help          show this help

Exit codes: 0 written, 1 usage error, 2 refused, 70 internal error.

Examples:
  sealkit distribute manifest reports/weather/2026-05-30 --id weather.2026-05-30
  sealkit distribute manifest reports/weather/2026-05-30 --id weather.2026-05-30 --created 2026-05-30T11:10:00Z
  sealkit distribute manifest out/week-22 --id sales.week-22 --exclude '*.log' --exclude 'scratch/' --replace
  sealkit distribute manifest out/week-22 --id sales.week-22 --exclude '*.log' --dry-run`;

const RUN_OPTIONS = {
  config: { type: 'string' },
  pipeline: { type: 'string' },
  'dry-run': { type: 'boolean' },
  checksum: { type: 'boolean' },
  wait: { type: 'string' },
  transfers: { type: 'string' },
  'fail-on-skipped-newer': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const NEVER_DELETES =
  'sealkit never deletes a published bundle the source no longer has (as rclone copy, not rclone sync): retire one by hand, as docs/distributor.md#a-bundle-removed-from-the-source shows';
const WHOLE_BUNDLES = 'not needed: a run publishes every bundle below each source.root, whole';
const REPORT_ALWAYS =
  'not needed: the report names every bundle and its outcome, and progress shows on a terminal (-q for neither)';
const BY_SIZE =
  'not needed: outputs are compared with what a destination holds by size, unless --checksum compares them by SHA-256';
const CONCURRENT =
  'not needed: sealkit looks at many bundles at once by itself; --transfers N sets how many are written at once to an S3 destination';
const NEWER_ONLY =
  "not needed: a published bundle is replaced only by a newer 'created' in its manifest (an older one is skipped_newer)";

/**
 * `distribute run` takes the place of `rsync -a` or `rclone copy` in a cron
 * job, and their flags come first to the fingers; each gets its answer
 * here, before the nearest flag of sealkit's is guessed (`-P` is not
 * `--pipeline`, nor `--checkers` `--checksum`).
 */
const RUN_HABITS: Readonly<Record<string, string>> = {
  '-n': "did you mean '--dry-run'? (-n is the dry run of rsync and rclone)",
  '--delete': NEVER_DELETES,
  '--delete-after': NEVER_DELETES,
  '--delete-before': NEVER_DELETES,
  '--delete-during': NEVER_DELETES,
  '--delete-excluded': NEVER_DELETES,
  '-a': WHOLE_BUNDLES,
  '--archive': WHOLE_BUNDLES,
  '-r': WHOLE_BUNDLES,
  '--recursive': WHOLE_BUNDLES,
  '-v': REPORT_ALWAYS,
  '--verbose': REPORT_ALWAYS,
  '--progress': REPORT_ALWAYS,
  '-P': REPORT_ALWAYS,
  '--size-only': BY_SIZE,
  '--checkers': CONCURRENT,
  '-u': NEWER_ONLY,
  '--update': NEWER_ONLY,
};

export const distributeRunCommand: Command = {
  path: ['distribute', 'run'],
  usage: RUN_USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values } = parseCommandArgs(args, RUN_OPTIONS, RUN_USAGE, { min: 0, max: 0 }, {}, RUN_HABITS);
    // An empty --config (`--config "$CONF"` with CONF unset in a cron job)
    // names no file: a usage error, never a path handed to the reader.
    pathOption(values.config, '--config', RUN_USAGE);
    nonEmptyOption(values.pipeline, '--pipeline', RUN_USAGE);
    const quiet = values.quiet === true;
    const transfers = values.transfers === undefined ? undefined : transfersOf(values.transfers);
    const progress = quiet ? undefined : progressPrinter(io);
    const waitSeconds = values.wait === undefined ? 0 : seconds(values.wait, RUN_USAGE);
    const faults = faultsFromVariable(DISTRIBUTE_FAULTS, process.env, RUN_USAGE);
    // The handlers stay until the process ends (src/cli/interruption.ts): a signal
    // after the run changes nothing, and never kills the process before its report.
    const interruption = Interruption.start({
      note: quiet || values.json === true ? undefined : io.stderr,
      secondSignalEnds: {
        stderr: io.stderr,
        left: SECOND_SIGNAL_LEFT,
        ...(values.json === true
          ? {
              json: {
                stdout: io.stdout,
                object: (signal: StopSignal) => ({
                  status: 'refused',
                  ...refusalJson(
                    refuseDistributor('run_interrupted', {
                      hint: `a second ${signal}: stopped at once, with no report; ${SECOND_SIGNAL_LEFT}`,
                    }),
                    'located',
                  ),
                }),
              },
            }
          : {}),
      },
    });
    // Heard at once on a terminal: a bundle of gigabytes being hashed can take seconds to let the run stop.
    if (progress !== undefined)
      interruption.signal.addEventListener(
        'abort',
        () => progress.stopping(interruption.received ?? 'SIGINT'),
        {
          once: true,
        },
      );
    let report: Awaited<ReturnType<typeof distributeRun>>;
    try {
      report = await distributeRun({
        ...(values.config === undefined ? {} : { configPath: values.config }),
        ...(waitSeconds === 0 ? {} : { waitMs: waitSeconds * 1000 }),
        ...(values.pipeline === undefined ? {} : { pipeline: values.pipeline }),
        dryRun: values['dry-run'] === true,
        ...(values.checksum === true ? { checksum: true } : {}),
        ...(progress === undefined ? {} : { onProgress: progress.onProgress }),
        ...(transfers === undefined ? {} : { transfers }),
        signal: interruption.signal,
      });
    } catch (error: unknown) {
      // Stopped before any write: the refusal, and the exit code of the signal.
      progress?.end();
      const received = await interruption.finish();
      if (received === undefined || !(error instanceof Refusal)) throw error;
      return {
        text: '',
        json: { status: 'refused', ...refusalJson(error, 'located') },
        errors: formatRefusal(error, 'located'),
        refused: true,
        interrupted: received,
        afterOutput: faults.afterResult,
      };
    }
    // A signal that came after the last commit stopped nothing: no bundle is
    // run_interrupted, so the report and its exit code stand. The progress
    // line ends first: the note on such a signal starts a line of its own.
    progress?.end();
    const received = await interruption.finish();
    const stopped = report.outcomes.some((item) => item.reason_code === 'run_interrupted');
    if (!stopped) interruption.completed('the run completed');
    const errors = distributeReportRefusals(report)
      .map((refusal) => formatRefusal(refusal, 'located'))
      .join('');
    // A destination newer than the source is not an error by default (the
    // source may be stale on purpose); a CI job can make it one.
    const newer = values['fail-on-skipped-newer'] === true ? newerRefusal(report) : undefined;
    // A report folder its producer left without a manifest is never
    // published, and exits 0: under -q, where a cron job shows only what
    // needs a person, the note is all that would tell anyone.
    const unpublished = quiet && !report.dry_run ? looseNote(report).replace(/\n+$/, '\n') : '';
    const allErrors = unpublished + errors + (newer === undefined ? '' : formatRefusal(newer, 'located'));
    const json = reportJson(report);
    return {
      text: quiet ? '' : report.dry_run ? planText(report) : summaryText(report),
      // Refused like any other run: a job reading `status` sees it failed.
      json:
        newer === undefined || report.status !== 'ok'
          ? json
          : { ...json, status: 'refused', ...topLevelRefusal(newer) },
      ...(allErrors === '' ? {} : { errors: allErrors }),
      refused: report.status !== 'ok' || newer !== undefined,
      ...(stopped ? interruptedBy(received) : {}),
      afterOutput: faults.afterResult,
    };
  },
};

/**
 * A bundle refused in validation has its refusal in `failures[]` only; its
 * outcomes carry the same fields in `--json`, as every refused outcome does
 * (docs/distributor.md#outcomes).
 */
function validationRefusal(
  report: RunReport,
  item: { readonly pipeline_id: string; readonly bundle_dir: string; readonly reason_code?: string },
): Refusal | undefined {
  if (item.reason_code === undefined || item.reason_code === 'run_aborted') return undefined;
  return report.failures.find(
    (failure) =>
      failure.pipeline_id === item.pipeline_id &&
      failure.bundle_dir === item.bundle_dir &&
      failure.reason_code === item.reason_code,
  )?.refusal;
}

/**
 * A bundle that passed its checks and waited for the run's failures
 * (`run_aborted`): its outcome in `--json` carries the refusal's fields like
 * every other refused one, with what stopped it.
 */
function abortedRefusal(
  report: RunReport,
  item: { readonly bundle_dir: string; readonly reason_code?: string },
): Refusal | undefined {
  if (item.reason_code !== 'run_aborted') return undefined;
  const count = report.failures.length;
  return refuseDistributor('run_aborted', {
    hint: `bundle '${item.bundle_dir}' passed its checks; nothing was written because ${counted(count, 'failure')} stopped the run (failures[]): fix ${count === 1 ? 'it' : 'them'}, or move a failing bundle out of the source root, and run again`,
  });
}

/**
 * The whole run's `run_aborted`, its hint naming the first failure, so that
 * a job that logs `.reason_code` and `.hint` of `--json` says what stopped
 * the run without reading `failures[]`.
 */
function abortedRunRefusal(report: RunReport): Refusal {
  const first = report.failures[0];
  if (first === undefined) return refuseDistributor('run_aborted');
  const location = first.refusal?.location;
  const at =
    location?.path === undefined
      ? ''
      : ` at ${location.path}${location.line === undefined ? '' : `:${location.line}:${location.column ?? 1}`}`;
  const whose =
    first.bundle_dir === null ? `pipeline '${first.pipeline_id}'` : `bundle '${first.bundle_dir}'`;
  const count = report.failures.length;
  const fix = count === 1 ? 'fix it' : 'fix them';
  // A pipeline's failure (its source root, say) is not moved out of the way.
  const remedy = report.failures.every((failure) => failure.bundle_dir !== null)
    ? `${fix}, or move a failing bundle out of the source root, and run again`
    : `${fix} and run again`;
  return refuseDistributor('run_aborted', {
    hint: `${counted(count, 'failure')} stopped the run (failures[]); the first: ${first.reason_code}${at} (${whose}): ${remedy}`,
  });
}

/**
 * The refusal `--fail-on-skipped-newer` makes of the run's `skipped_newer`
 * items, naming the first few; undefined when there is none.
 */
function newerRefusal(report: RunReport): Refusal | undefined {
  const newer = report.outcomes.filter((item) => item.outcome === 'skipped_newer');
  if (newer.length === 0) return undefined;
  const shown = newer.slice(0, 3).map((item) => {
    const created =
      item.destination_created === undefined || item.source_created === undefined
        ? ''
        : ` (${item.destination_created} > ${item.source_created})`;
    return `'${item.bundle_dir}' at '${item.destination_id}'${created}`;
  });
  const more = newer.length > shown.length ? ` and ${newer.length - shown.length} more` : '';
  return refuseDistributor('skipped_newer_refused', {
    hint: `${counted(newer.length, 'bundle')} not published: ${shown.join(', ')}${more}; publish a newer issue from the source, or run without --fail-on-skipped-newer to accept it`,
  });
}

/**
 * writeManifest's hints name its options (`replace: true`, the exclude
 * option) as a library caller writes them; on the command line they are
 * the --replace and --exclude flags.
 */
function withManifestFlags<T>(write: () => T): T {
  try {
    return write();
  } catch (error: unknown) {
    if (!(error instanceof Refusal)) throw error;
    const flagged = (one: Refusal): Refusal =>
      one.hint === undefined
        ? one
        : one.at(
            {},
            one.hint
              .replaceAll(MANIFEST_REPLACE_OPTION, '--replace')
              .replaceAll(MANIFEST_EXCLUDE_OPTION, '--exclude'),
          );
    throw flagged(error).withOthers(error.also.map(flagged), error.omitted);
  }
}

/** `reason_code`, `category`, `message`, `location` and `hint` of a refusal, for the top of a `--json` report. */
function topLevelRefusal(refusal: Refusal): JsonObjectOut {
  const { reason_code, category, message, location, hint } = refusalJson(refusal, 'located');
  return {
    reason_code,
    category,
    message,
    ...(location === undefined ? {} : { location }),
    ...(hint === undefined ? {} : { hint }),
  };
}

/** What a run ended by a second signal leaves, said on stderr (and in the JSON under `--json`). */
const SECOND_SIGNAL_LEFT =
  'bundles committed stay published; the next run removes what this one left (on S3 once its pending markers expire, at most 2 minutes)';

/**
 * The test-only fault variable of `distribute run`
 * (docs/distributor.md#the-test-only-fault-hook): the CLI's own
 * `pause@after_result` only, where the report is printed and the process
 * has not ended.
 */
export const DISTRIBUTE_FAULTS: FaultVariable<never> = {
  name: 'SEALKIT_DISTRIBUTE_FAULTS',
  points: [],
  label: 'sealkit distribute run',
  doc: 'docs/distributor.md',
};

function transfersOf(text: string): number {
  const value = /^[1-9][0-9]?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= MAX_TRANSFERS))
    throw usage(
      `--transfers takes a whole number from 1 to ${MAX_TRANSFERS}, not ${quotedValue(text)}`,
      RUN_USAGE,
    );
  return value;
}

export const distributeVerifyCommand: Command = {
  path: ['distribute', 'verify'],
  usage: VERIFY_USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        source: { type: 'boolean' },
        html: { type: 'boolean' },
        assets: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      VERIFY_USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireDir(positionals[0], VERIFY_USAGE);
    const selected = values.source === true || values.html === true || values.assets === true;
    const outputs = {
      source: values.source === true,
      html: values.html === true,
      ...(values.assets === true ? { assets: true } : {}),
    };
    const { verifyBundle } = await import('../../distributor/rendering.js');
    const verified = verifyBundle(dir, selected ? { outputs } : {});
    const pages = outputs.html ? `, ${counted(verified.pages, 'page')} rendered` : '';
    // A link to a .md file past the folder above the bundle (which verify
    // takes for the source root) is decided by a run, which knows the root
    // and whether a bundle there publishes that page. A .md file in a
    // folder above the bundle is in no bundle, whatever the root: said as
    // a run says it.
    const bundleName = basename(resolve(dir));
    const undecided = (warning: LinkWarning) =>
      warning.problem === 'markdown_outside_bundle' &&
      climbsAboveRoot(warning.href, warning.page, bundleName);
    const outward = verified.link_warnings.filter(undecided);
    const warnings = verified.link_warnings
      .filter((warning) => !undecided(warning))
      .map((warning) => `  ${linkWarningText('', warning)}`);
    return {
      text: `valid: ${counted(verified.files, 'file')}, ${counted(verified.bytes, 'byte')}${pages}, digest ${verified.manifest.digest}\n${
        warnings.length === 0
          ? ''
          : `${counted(warnings.length, 'link')} in these pages will not load where they are published with these outputs:\n${warnings.join('\n')}\n`
      }${
        outward.length === 0
          ? ''
          : `${counted(outward.length, 'link')} in these pages ${outward.length === 1 ? 'leads' : 'lead'} out of this bundle to a .md file: a run points ${outward.length === 1 ? 'it' : 'each'} at its page (.html) when a bundle of the same source root publishes that file, and keeps ${outward.length === 1 ? 'it' : 'the link'} as written otherwise (then it will not load where only pages are published):\n${outward
              .map((warning) => `  ${linkPlace('', warning)}`)
              .join('\n')}\n`
      }${notInManifestText(verified.files_not_in_manifest, `sealkit distribute manifest ${shellWord(dir)} --id ${shellWord(verified.manifest.id)} --replace`)}`,
      json: {
        status: 'ok',
        id: verified.manifest.id,
        created: verified.manifest.created,
        digest: verified.manifest.digest,
        files: verified.files,
        bytes: verified.bytes,
        files_not_in_manifest: verified.files_not_in_manifest,
        ...(selected ? { outputs, pages: verified.pages, link_warnings: verified.link_warnings } : {}),
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
        'include-hidden': { type: 'boolean' },
        exclude: { type: 'string', multiple: true },
        replace: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      MANIFEST_USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireDir(positionals[0], MANIFEST_USAGE);
    if (values.id === undefined) throw usage('missing option --id', MANIFEST_USAGE);
    // The flags are the operator's own command line: a malformed one is a
    // usage error naming it (docs/cli.md#exit-codes); the library refuses the
    // same values with manifest_id_invalid / manifest_created_invalid.
    const idProblem = bundleIdProblem(values.id);
    if (idProblem !== undefined)
      throw usage(
        `--id takes a bundle id such as weather.2026-05-30, not ${quotedValue(values.id)}: ${idProblem}`,
        MANIFEST_USAGE,
      );
    if (values.created !== undefined && parseRfc3339Instant(values.created) === undefined)
      throw usage(
        `--created takes an RFC 3339 timestamp such as 2026-05-30T00:00:00Z, not ${quotedValue(values.created)}`,
        MANIFEST_USAGE,
      );
    const exclude = nonEmptyOption(values.exclude ?? [], '--exclude', MANIFEST_USAGE);
    const { id, created } = values;
    const written = withManifestFlags(() =>
      writeManifest(dir, {
        id,
        ...(created === undefined ? {} : { created }),
        includeHidden: values['include-hidden'] === true,
        exclude,
        replace: values.replace === true,
        dryRun: values['dry-run'] === true,
      }),
    );
    const { manifest, left_out: leftOut, replaced, previous } = written;
    const dryRun = values['dry-run'] === true;
    const verb = dryRun ? (replaced ? 'would replace' : 'would write') : replaced ? 'replaced' : 'wrote';
    const bytes = manifest.files.reduce((sum, file) => sum + file.size, 0);
    return {
      text:
        // The folder and id on the line: a loop writing many manifests logs which line is which.
        `${verb} ${escapedBytes(Buffer.from(join(dir, 'manifest.json'), 'utf8'))} (id ${manifest.id}): ${counted(manifest.files.length, 'file')}, ${counted(bytes, 'byte')}, digest ${manifest.digest}\n` +
        (dryRun
          ? manifest.files.map((file) => `  ${file.path} (${counted(file.size, 'byte')})\n`).join('')
          : '') +
        leftOutText(leftOut) +
        idChangedText(manifest, previous) +
        sameFilesText(manifest, previous),
      json: {
        status: 'ok',
        dry_run: dryRun,
        id: manifest.id,
        created: manifest.created,
        digest: manifest.digest,
        files: manifest.files.length,
        bytes,
        replaced,
        ...(previous === undefined
          ? {}
          : { previous: { id: previous.id, digest: previous.digest, created: previous.created } }),
        left_out: leftOut.map((entry) => ({ path: entry.path, reason: entry.reason })),
      },
    };
  },
};

/** `--wait`: whole seconds, 0 to one day. */
function seconds(value: string, text: string): number {
  const parsed = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= 0 && parsed <= 86_400))
    throw usage(`--wait takes whole seconds from 0 to 86400, not ${quotedValue(value)}`, text);
  return parsed;
}

/**
 * The files of the bundle folder its manifest does not list, the first 10
 * named: a chart or CSV written after the manifest, which no run publishes.
 */
function notInManifestText(files: readonly string[], again: string): string {
  if (files.length === 0) return '';
  const shown = files.slice(0, 10).map((file) => `  ${escapedBytes(Buffer.from(file, 'utf8'))}`);
  const more = files.length > 10 ? [`  and ${files.length - 10} more`] : [];
  return `${counted(files.length, 'file')} in the folder ${files.length === 1 ? 'is' : 'are'} not in the manifest, so no run publishes ${files.length === 1 ? 'it' : 'them'} (if ${files.length === 1 ? 'it belongs' : 'they belong'} to the bundle, write the manifest again, with the --exclude it was written with, if any: ${again}):\n${[...shown, ...more].join('\n')}\n`;
}

/**
 * A manifest written anew over the same files with another `created`: each
 * destination then replaces a bundle that did not change, which a nightly
 * job that manifests every folder would do every night
 * (docs/distributor.md#producing-a-manifest).
 */
function sameFilesText(
  manifest: { readonly id: string; readonly digest: string; readonly created: Instant },
  previous: { readonly id: string; readonly digest: string; readonly created: Instant } | undefined,
): string {
  // An older created is not republished anywhere (skipped_newer): nothing to
  // say; another id is said by idChangedText, and is no replacement.
  if (
    previous === undefined ||
    previous.id !== manifest.id ||
    previous.digest !== manifest.digest ||
    compareInstants(manifest.created, previous.created) <= 0
  )
    return '';
  return `note: the files are those of the manifest replaced (same digest); only created changed (${previous.created} -> ${manifest.created}), so every destination will replace the bundle it published: to leave it as published, give --created ${previous.created}\n`;
}

/**
 * A manifest written anew with another id: a destination that published
 * the folder under the old id keeps it, and refuses the new one as
 * `conflict_different_id` (one bundle path keeps one id), which the
 * operator learns here rather than from the next run's exit status.
 */
function idChangedText(
  manifest: { readonly id: string },
  previous: { readonly id: string } | undefined,
): string {
  if (previous === undefined || previous.id === manifest.id) return '';
  const [before, after] = [quotedName(previous.id), quotedName(manifest.id)];
  return `note: the id changed (${before} -> ${after}): a destination that published this folder as ${before} keeps it, and a run refuses the folder there as conflict_different_id (one bundle path keeps one id): to go on publishing it there, give --id ${shellWord(previous.id)}; to publish it under the new id, move the published bundle away first\n`;
}

/** What the manifest leaves out, one line, the first 10 named. */
function leftOutText(leftOut: readonly { readonly path: string; readonly reason: string }[]): string {
  if (leftOut.length === 0) return '';
  const shown = leftOut.slice(0, 10).map((entry) => `${entry.path} (${entry.reason})`);
  const more = leftOut.length > 10 ? `, and ${leftOut.length - 10} more` : '';
  return `left out: ${shown.join(', ')}${more}\n`;
}

function requireDir(value: string | undefined, text: string): string {
  return requireArgument(value, 'BUNDLE_DIR', text);
}

function usage(message: string, text: string): UsageError {
  return new UsageError(message, text);
}

/** Seconds without a progress event after which the line says how long the run has waited for its destination. */
const STALLED_AFTER_SECONDS = 2;

/**
 * At most this many redraws of one phase's count: a run of 10,000 bundles
 * drew the line 20,000 times (a megabyte written to the terminal, each
 * write waiting for it, which over a slow SSH link held the run back). Up
 * to this many bundles every count is drawn.
 */
const PROGRESS_STEPS = 200;

/**
 * Whether `event` changes the line enough to draw: another phase,
 * destination or total, its first or last count, or a count that moves
 * into the next of PROGRESS_STEPS equal steps of the phase.
 */
export function worthDrawing(event: ProgressEvent, drawn: ProgressEvent | undefined): boolean {
  if (drawn === undefined) return true;
  if (
    event.phase !== drawn.phase ||
    event.destination_id !== drawn.destination_id ||
    event.total !== drawn.total ||
    event.done === 0 ||
    event.done === event.total
  )
    return true;
  const step = (done: number): number => Math.floor((done * PROGRESS_STEPS) / event.total);
  return step(event.done) !== step(drawn.done);
}

interface ProgressPrinter {
  readonly onProgress: (event: ProgressEvent) => void;
  /** Ends the progress: no more redrawing, and the line cleared for the report. */
  readonly end: () => void;
  /**
   * A signal came while the run works: the line ends with a note that it
   * was heard, and no count moves after it (the step under way — a bundle
   * being read and hashed, an upload — still ends first).
   */
  readonly stopping: (signal: string) => void;
}

/**
 * Progress goes to stderr, only on a terminal: pipes and --json consumers
 * see the report alone. While the destination being inspected or written
 * to keeps the count still, the line is redrawn every second: with the
 * output bytes sent so far while an upload moves them (a large output), and
 * with how long the run has been waiting and for which destination once
 * nothing moves (a store that accepts connections and never answers), so
 * that a terminal never sits silent for the length of the timeouts.
 */
function progressPrinter(io: CliIo): ProgressPrinter | undefined {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return undefined;
  let last: ProgressEvent | undefined;
  let lastAt = 0;
  let ended = false;
  let drawn = false;
  // The count the line shows; a count between two steps is not drawn (worthDrawing).
  let shown: ProgressEvent | undefined;
  // The bytes sent went back at this count: an upload failed and is sent again.
  let resent = false;
  const draw = (event: ProgressEvent, waited: number, sending = false): void => {
    drawn = true;
    shown = event;
    io.stderr.write(`\r\u001b[2Ksealkit distribute: ${progressLine(event, waited, sending, resent)}`);
  };
  // When the count last changed; `lastAt` is when anything last moved (also bytes sent).
  let countAt = 0;
  const timer = setInterval(() => {
    if (last === undefined || ended) return;
    const waited = Math.floor((performance.now() - lastAt) / 1000);
    const still = Math.floor((performance.now() - countAt) / 1000);
    if (waited >= STALLED_AFTER_SECONDS) draw(last, waited);
    else if (still >= STALLED_AFTER_SECONDS) draw(last, 0, true);
  }, 1000);
  // The redrawing never keeps the process alive.
  timer.unref();
  return {
    onProgress: (event) => {
      if (ended) return;
      // Only more bytes sent: the line changes when the timer next looks.
      const sending = last !== undefined && sameCount(last, event);
      resent = sentAgain(last, event, resent);
      last = event;
      lastAt = performance.now();
      if (sending) return;
      countAt = lastAt;
      if (worthDrawing(event, shown)) draw(event, 0);
    },
    end: () => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      // Cleared: a last 'apply 3/3' (or 'apply 0/0' on a rerun) above the report read as a step left hanging.
      if (drawn) io.stderr.write('\r\u001b[2K');
    },
    stopping: (signal) => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      io.stderr.write(
        `${drawn ? '\n' : ''}sealkit distribute: ${signal}: stopping once the step under way ends (the bundle being read and hashed, the writes in flight)\n`,
      );
    },
  };
}

/**
 * Whether the line says an upload is sent again: from the moment the bytes
 * sent at one count go back (an attempt failed; the next sends its bytes
 * anew) until the count moves on.
 */
export function sentAgain(last: ProgressEvent | undefined, event: ProgressEvent, resent: boolean): boolean {
  if (last === undefined || !sameCount(last, event)) return false;
  return resent || (event.bytes_done ?? 0) < (last.bytes_done ?? 0);
}

/**
 * One progress line: the phase's count, the destination, and after a still
 * while how long the run waited for it — or, while bytes are still being
 * sent (`sending`), how many of the apply's output bytes have gone, and
 * (`resent`) that a failed upload is being sent again, so that the count
 * going back does not read as bytes lost.
 */
export function progressLine(
  event: ProgressEvent,
  waitedSeconds: number,
  sending = false,
  resent = false,
): string {
  const destination = event.destination_id;
  if (event.phase === 'wait')
    return `waiting for destination ${destination ?? ''}, held by another run: ${event.done}/${event.total} s`;
  const count = `${event.phase} ${event.done}/${event.total}`;
  if (destination === undefined || event.phase === 'validate') return count;
  const bytes =
    event.bytes_done === undefined || event.bytes_total === undefined || event.bytes_total === 0
      ? undefined
      : sizePair(event.bytes_done, event.bytes_total);
  const again = resent ? ' (an upload failed and is sent again)' : '';
  if (sending && bytes !== undefined) return `${count}, ${bytes} to destination ${destination}${again}`;
  // Still for a while: said apart from an upload, with what was sent before the stillness.
  if (waitedSeconds >= STALLED_AFTER_SECONDS)
    return `${count}, ${bytes === undefined ? '' : `${bytes} sent, `}waiting ${waitedSeconds} s for destination ${destination}${again}`;
  return `${count}, destination ${destination}`;
}

/**
 * `12.3/20.0 MB`, or in kilobytes when the whole is under one megabyte
 * (`412.5/830.2 kB`): a bundle of many small files would otherwise show
 * `0.0/0.8 MB` for as long as its upload takes. Decimal units, one decimal.
 */
export function sizePair(done: number, total: number): string {
  // Below 999,950 bytes the whole would round to 1000.0 kB: megabytes from there.
  const [unit, scale] = total < 999_950 ? ['kB', 1e3] : ['MB', 1e6];
  return `${(done / scale).toFixed(1)}/${(total / scale).toFixed(1)} ${unit}`;
}

/** The same count at the same destination: an event that only tells of more bytes sent. */
function sameCount(a: ProgressEvent, b: ProgressEvent): boolean {
  return (
    a.phase === b.phase && a.done === b.done && a.total === b.total && a.destination_id === b.destination_id
  );
}

function countsLine(report: RunReport): string {
  return DISTRIBUTE_OUTCOMES.map((outcome) => `${report.counts[outcome]} ${outcome}`).join(', ');
}

/**
 * The report as printed under `--json`: each refusal's location and hint
 * beside its reason code, in place of the refusal object.
 */
function reportJson(report: RunReport): JsonObjectOut {
  const where = (refusal: Refusal | undefined): JsonObjectOut => {
    if (refusal === undefined) return {};
    const { category, message, location, hint, details, also, omitted } = refusalJson(refusal, 'located');
    return {
      category,
      message,
      ...(location === undefined ? {} : { location }),
      ...(hint === undefined ? {} : { hint }),
      ...(details === undefined ? {} : { details }),
      ...(also === undefined ? {} : { also }),
      ...(omitted === undefined ? {} : { omitted }),
    };
  };
  const failures = report.failures.map(({ refusal, ...failure }) => ({ ...failure, ...where(refusal) }));
  // An aborted run is one refusal of the whole run: said at the top as on
  // every other refusal (docs/cli.md#output), the causes in failures[].
  const aborted = report.aborted ? refusalJson(abortedRunRefusal(report), 'located') : undefined;
  // Any other refused run says at the top the first refusal it prints on
  // stderr (a conflict, a locked or unwritable destination…), so that a job
  // reading `.reason_code` never finds it missing beside `status: refused`.
  const first =
    aborted === undefined && report.status === 'refused' ? distributeReportRefusals(report)[0] : undefined;
  // Replaced in place, so the report's keys keep their order.
  const printed = {
    ...report,
    failures,
    outcomes: report.outcomes.map(({ refusal, ...item }) => ({
      ...item,
      ...where(refusal ?? validationRefusal(report, item) ?? abortedRefusal(report, item)),
    })),
    plan: { ...report.plan, failures },
  };
  return {
    ...jsonOut(printed),
    ...(aborted === undefined
      ? first === undefined
        ? {}
        : topLevelRefusal(first)
      : {
          reason_code: aborted.reason_code,
          category: aborted.category,
          message: aborted.message,
          ...(aborted.hint === undefined ? {} : { hint: aborted.hint }),
        }),
  };
}

function failuresText(report: RunReport): string {
  if (!report.aborted) return '';
  // A refusal outside every bundle stops a whole pipeline, although no row
  // of the table below may name it: say which pipeline and why.
  const whole = report.failures
    .filter((failure) => failure.bundle_dir === null)
    .map((failure) =>
      failure.destination_id === undefined
        ? `pipeline '${failure.pipeline_id}' refused as a whole: ${failure.reason_code}\n`
        : `pipeline '${failure.pipeline_id}', destination '${failure.destination_id}' refused: ${failure.reason_code}\n`,
    );
  return `run aborted before any write (the refusals are on stderr)\n${[...new Set(whole)].join('')}\n`;
}

function summaryText(report: RunReport): string {
  const rows = [
    ['PIPELINE', 'DESTINATION', 'BUNDLE', 'OUTCOME', 'REASON'],
    ...report.outcomes.map((item: ItemOutcome) => [
      item.pipeline_id,
      item.destination_id,
      item.bundle_dir,
      item.outcome,
      reasonText(item),
    ]),
  ];
  // Without a single outcome there is no table to print: say why instead.
  const body =
    report.outcomes.length > 0
      ? `${table(rows)}\n\n${sameFilesNote(report, true)}${linkNote(report, true)}${looseNote(report)}${unlistedNote(report)}${notRenderedNote(report)}${sharedIdsNote(report)}${unlistedBesideNote(report)}${waitedNote(report)}`
      : report.failures.length > 0
        ? // No table, as a failure stopped the run; a folder left without its manifest is still said.
          looseNote(report)
        : `${noBundleLines(report).join('\n')}\n\n`;
  return `${failuresText(report)}${body}summary: ${countsLine(report)}\n`;
}

/**
 * A link as its author wrote it, for a person to search the Markdown for
 * (`daten/über.csv`, `my files/a.csv`): the page holds it percent-encoded.
 * One that does not decode is shown as the page holds it.
 */
function writtenHref(href: string): string {
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
}

/** One link warning: the page (below `folder`) and line, the link as written, and why it will not load. */
function linkWarningText(folder: string, warning: LinkWarning): string {
  return `${linkPlace(folder, warning)} ${linkProblemText(warning)}`;
}

/** Where a link stands and what it says: `weekly/report.md:12: link ../x.md`. */
function linkPlace(folder: string, warning: LinkWarning): string {
  const where = escapedBytes(Buffer.from(`${folder}${warning.page}:${warning.line}`, 'utf8'));
  const link = escapedBytes(Buffer.from(writtenHref(warning.href), 'utf8'));
  return `${where}: ${warning.image ? 'image' : 'link'} ${link}`;
}

/**
 * What a warning says. A listed page or Markdown file (`old.html`,
 * `guide/index.html`) is never one of the `assets`, so for it the advice
 * is `source: true`, which copies every listed file as it is.
 */
function linkProblemText(warning: LinkWarning): string {
  if (warning.problem === 'in_folder_without_manifest' && warning.target_bundle_dir !== undefined)
    return `leads into ${escapedBytes(Buffer.from(warning.target_bundle_dir, 'utf8'))} below the source root, a folder that holds files but no manifest.json, so no run publishes it: write its manifest, or put the file in a bundle`;
  if (warning.problem === 'not_in_other_bundle' && warning.target_bundle_dir !== undefined) {
    const bundle = `leads into bundle ${escapedBytes(Buffer.from(warning.target_bundle_dir, 'utf8'))} of this run`;
    // A file that bundle lists: the name is right, this destination's outputs leave it out.
    if (warning.published_by !== undefined && warning.file !== undefined)
      return `${bundle}, which lists ${escapedBytes(Buffer.from(warning.file, 'utf8'))}, but not among this destination's outputs (${
        warning.published_by === 'source'
          ? 'source: true copies it as it is; assets: true copies charts and data only'
          : 'assets: true publishes charts and data beside the pages'
      })`;
    return `${bundle}, which publishes no such file here: check the name (a link to a .md file points at its page, .html)`;
  }
  // A link to a folder names what a web server answers it with, its index page.
  const file = warning.file;
  const subject =
    file?.endsWith('index.html') && !warning.href.endsWith('index.html')
      ? `leads to ${escapedBytes(Buffer.from(file, 'utf8'))}, which is listed`
      : 'is listed';
  if (warning.published_by === 'source')
    return `${subject}, but not among this destination's outputs (source: true copies it as it is; assets: true copies charts and data only)`;
  if (warning.problem === 'not_published_here')
    return `${subject}${LINK_PROBLEMS.not_published_here.slice('is listed'.length)}`;
  // A folder is answered with its index.html: that is what is missing, whatever else the folder holds.
  if (warning.problem === 'not_at_destination' && /\/(?:[?#].*)?$/.test(warning.href))
    return 'leads into no bundle of this run, and the destination holds no index.html there either (a web server answers a folder with it; a bundle published before would have one): check the name';
  return LINK_PROBLEMS[warning.problem];
}

/** At most this many link warnings are printed; --json holds them all. */
const SHOWN_LINK_WARNINGS = 10;

const LINK_PROBLEMS: { readonly [P in LinkProblem]: string } = {
  not_in_manifest: "is not in the bundle's manifest, so no run publishes it",
  not_published_here:
    "is listed, but not among this destination's outputs (assets: true publishes charts and data beside the pages)",
  markdown_outside_bundle:
    'leads to a .md file above the bundle folder or outside the source root, which no bundle publishes here: the link is kept as written',
  folder_without_index:
    'is a folder with no index.html here, so a web server has no page to show: link to a file in it, or add an index.md',
  not_in_other_bundle:
    'leads into another bundle of this run, which publishes no such file here: check the name',
  raw_html_image:
    'is in an HTML <img> tag, which the page shows as text (raw HTML is escaped): write it as a Markdown image, ![text](path)',
  remote_image:
    'is an image from another site, which the page never loads (its Content-Security-Policy allows images from the site itself and data: URLs only): save the image in the bundle and link it by its path',
  in_folder_without_manifest:
    'leads into a folder below the source root that holds files but no manifest.json, so no run publishes it: write its manifest, or put the file in a bundle',
  query_in_name:
    'names a listed file whose name holds ? or #, which a link reads as the start of a query or fragment, so the page asks for another file: write them as %3F and %23 in the link (or rename the file)',
  not_at_destination:
    'leads into no bundle of this run, and the destination holds no such file either (a bundle published before would): check the name',
  markdown_from_site_root:
    "leads to a .md file from the site's root, and no .md file is published here: write the link relative to this page instead (each ../ climbs one folder), which a run points at that bundle's page and checks",
};

/**
 * Links of the pages a run publishes that will point at nothing there
 * (docs/distributor.md#pages): the pages are published as written, and the
 * report says which links will not load. `applied`: only bundles the run
 * did write; else (a dry run) every planned write.
 */
function linkNote(report: RunReport, applied: boolean): string {
  const written = new Set(
    report.outcomes
      .filter((item) => item.outcome === 'published' || item.outcome === 'replaced')
      .map((item) => `${item.pipeline_id}\u0000${item.destination_id}\u0000${item.bundle_dir}`),
  );
  const lines: string[] = [];
  let total = 0;
  for (const item of report.plan.items) {
    if (item.outcome !== 'published' && item.outcome !== 'replaced') continue;
    if (applied && !written.has(`${item.pipeline_id}\u0000${item.destination_id}\u0000${item.bundle_dir}`))
      continue;
    for (const warning of item.link_warnings ?? []) {
      total += 1;
      if (lines.length < SHOWN_LINK_WARNINGS)
        lines.push(`  ${item.destination_id}: ${linkWarningText(`${item.bundle_dir}/`, warning)}`);
    }
  }
  if (total === 0) return '';
  const more =
    total > lines.length
      ? [`  and ${total - lines.length} more (all in --json: plan.items[].link_warnings)`]
      : [];
  return `${[`${counted(total, 'link')} in these pages will not load at their destination (the pages are published as written):`, ...lines, ...more].join('\n')}\n\n`;
}

/**
 * The destinations where another run held this run up, and how long it
 * waited under --wait: progress shows the wait on a terminal only, and a log
 * kept of a nightly run should say why it took longer.
 */
function waitedNote(report: RunReport): string {
  const lines = (report.waited ?? []).map((wait) => {
    const held = report.outcomes.some(
      (item) =>
        item.pipeline_id === wait.pipeline_id &&
        item.destination_id === wait.destination_id &&
        item.reason_code === 'destination_locked',
    );
    return `waited ${(wait.waited_ms / 1000).toFixed(1)} s for another run at destination '${wait.destination_id}' (pipeline '${wait.pipeline_id}')${held ? ', which still held it when the wait ran out (destination_locked)' : ''}`;
  });
  return lines.length === 0 ? '' : `${lines.join('\n')}\n\n`;
}

/**
 * Bundles replaced only because their manifest has a newer `created` over
 * the same files: what a nightly job that writes every manifest anew does to
 * every bundle, every night. Said once under the table, with the way to
 * keep a bundle as published (docs/distributor.md#outcomes).
 */
function sameFilesNote(report: RunReport, applied: boolean): string {
  const items: readonly {
    readonly pipeline_id: string;
    readonly bundle_dir: string;
    readonly reason?: string;
  }[] = applied
    ? report.outcomes.filter((item) => item.outcome === 'replaced')
    : report.plan.items.flatMap((item) => (item.outcome === 'replaced' ? [item] : []));
  // Bundles, not outcomes: one bundle replaced at two destinations is one.
  const bundles = new Set(
    items
      .filter((item) => item.reason === 'same_files')
      .map((item) => `${item.pipeline_id}\u0000${item.bundle_dir}`),
  );
  const count = bundles.size;
  if (count === 0) return '';
  const what = `${counted(count, 'bundle')} ${applied ? (count === 1 ? 'was' : 'were') : 'would be'} replaced over the same files, only created changed (a manifest written again over an unchanged folder)`;
  // Once replaced, the destination holds the new created: giving the old
  // one now would make the source older than what is published.
  return applied
    ? `${what}; the destinations now hold the new created: to avoid this, write a manifest again only when its files change, or keep its created (--created with the value after -> above)\n\n`
    : `${what}; to keep a bundle as published, write its manifest again with the published created (before -> above): sealkit distribute manifest <folder> --id <id> --created <published created> --replace\n\n`;
}

/**
 * Beside the bundles found: a folder holding files but no manifest.json (a
 * report whose producer forgot its manifest, which no run publishes) and
 * files lying directly in a source root, said in one line each so that a
 * run that publishes the others does not look complete. Empty when none.
 */
function looseNote(report: RunReport): string {
  const lines: string[] = [];
  const all = report.plan.pipelines;
  const folders = namesAcross(all, (pipeline) => pipeline.dirs_without_manifest);
  const files = namesAcross(all, (pipeline) => pipeline.files_at_source_root);
  if (folders.total > 0)
    lines.push(
      `not published: ${counted(folders.total, 'folder')} ${folders.total === 1 ? 'holds' : 'hold'} files but no manifest.json (${folders.shown}); write one with: sealkit distribute manifest ${oneFolder(all) ?? '<folder>'} --id <id>`,
    );
  if (files.total > 0)
    lines.push(
      `not published: ${counted(files.total, 'file')} directly in a source root (${files.shown}); a bundle is a folder below the root`,
    );
  return lines.length === 0 ? '' : `${lines.join('\n')}\n\n`;
}

/** The one folder without a manifest of the whole run, ready to paste; undefined when there are more. */
function oneFolder(pipelines: readonly PipelinePlan[]): string | undefined {
  const folders = pipelines.flatMap((pipeline) => pipeline.dirs_without_manifest.first);
  const total = pipelines.reduce((sum, pipeline) => sum + pipeline.dirs_without_manifest.total, 0);
  return total === 1 && folders[0] !== undefined ? shellWord(folders[0]) : undefined;
}

/** One list of the plan's pipelines, summed: how many names in all, and the first of them for a note. */
function namesAcross(
  pipelines: readonly PipelinePlan[],
  pick: (pipeline: PipelinePlan) => { readonly total: number; readonly first: readonly string[] },
): { readonly total: number; readonly shown: string } {
  const total = pipelines.reduce((sum, pipeline) => sum + pick(pipeline).total, 0);
  return {
    total,
    shown: namesInNote(
      pipelines.flatMap((pipeline) => pick(pipeline).first),
      total,
    ),
  };
}

/**
 * The first three of `total` names in a note's parentheses, each quoted
 * (a name may hold `, ` itself) and with control bytes escaped, then how
 * many more there are.
 */
function namesInNote(names: readonly string[], total: number): string {
  const first = names.slice(0, 3);
  const rest = total - first.length;
  return `${first.map(quotedName).join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
}

/**
 * A name in single quotes, as a note shows it: control bytes, the
 * backslash and a quote of its own as `\xNN`, so that `x', 'y` reads as
 * one name.
 */
function quotedName(name: string): string {
  return `'${escapedBytes(Buffer.from(name, 'utf8')).replaceAll("'", '\\x27')}'`;
}

/**
 * Files in bundle folders written after their manifest, which does not list
 * them: a chart or a CSV added later never reaches a destination, and
 * nothing else would say so. A file left out on purpose was there before the
 * manifest and is not named. In the report only, not on stderr under -q.
 */
function unlistedNote(report: RunReport): string {
  const all = report.plan.pipelines;
  const { total, shown } = namesAcross(all, (pipeline) => pipeline.files_after_manifest);
  if (total === 0) return '';
  const bundles = all.flatMap((pipeline) => pipeline.files_after_manifest.bundles.first);
  const bundleTotal = all.reduce((sum, pipeline) => sum + pipeline.files_after_manifest.bundles.total, 0);
  const head = `not published: ${counted(total, 'file')} ${total === 1 ? 'in a bundle folder was written after its manifest and is' : 'in bundle folders were written after their manifest and are'} not in it (${shown})`;
  const command = (bundle: LateFilesBundle): string =>
    `sealkit distribute manifest ${shellWord(bundle.folder)} --id ${shellWord(bundle.id)} --replace`;
  const [only] = bundles;
  if (bundleTotal <= 1)
    return `${head}; if ${total === 1 ? 'it belongs' : 'they belong'} to the bundle, write its manifest again (with the --exclude it was written with, if any): ${only === undefined ? 'sealkit distribute manifest <folder> --id <id> --replace' : command(only)}\n\n`;
  // One command per bundle, to paste: the first three, then how many more.
  const shownBundles = bundles.slice(0, 3);
  const more = bundleTotal - shownBundles.length;
  return `${head}; if they belong to their bundles, write each manifest again (with the --exclude it was written with, if any):\n${shownBundles.map((bundle) => `  ${command(bundle)}\n`).join('')}${more > 0 ? `  (and ${counted(more, 'more bundle')})\n` : ''}\n`;
}

/**
 * Files named like Markdown (`report.MD`, `notes.markdown`) in pipelines
 * that render pages: only a lowercase `.md` file becomes a page, and a
 * user who saved one from an editor that capitalizes the extension found
 * the page missing (or the raw text published as an asset) without a word.
 */
function notRenderedNote(report: RunReport): string {
  const { total, shown } = namesAcross(report.plan.pipelines, (pipeline) => pipeline.files_not_rendered);
  if (total === 0) return '';
  return `not rendered: ${counted(total, 'file')} ${total === 1 ? 'is' : 'are'} named like Markdown but not *.md in lower case (${shown}), so no page is made from ${total === 1 ? 'it' : 'them'} (source: true or assets: true publish ${total === 1 ? 'it' : 'them'} only as ${total === 1 ? 'a file' : 'files'}); to publish ${total === 1 ? 'it as a page, rename it' : 'them as pages, rename them'} to .md and write the manifest again\n\n`;
}

/**
 * Skipped bundles whose published folder (or prefix) holds entries that no
 * state lists: nothing fails tonight, but the bundle's next version is
 * refused for them (`destination_unlisted_entry`), so the run says so while
 * there is time to move them.
 */
function unlistedBesideNote(report: RunReport): string {
  let entries = 0;
  const names = report.plan.items.flatMap((item) => {
    if (
      (item.outcome !== 'skipped_same' && item.outcome !== 'skipped_newer') ||
      item.unlisted_path === undefined
    )
      return [];
    entries += item.unlisted_count ?? 1;
    return [`${item.destination_id}: ${item.bundle_dir}/${item.unlisted_path}`];
  });
  if (names.length === 0) return '';
  const one = names.length === 1;
  return `not sealkit's: ${counted(entries, 'entry', 'entries')} in ${counted(names.length, 'published bundle')} ${entries === 1 ? 'is' : 'are'} listed by no .distributor.json (${one ? 'the first' : 'the first of each'}: ${namesInNote(names, names.length)}), put there by hand or by another tool; they are left where they are, but the next version of ${one ? 'that bundle' : 'those bundles'} is refused (destination_unlisted_entry) until they are moved out\n\n`;
}

/**
 * Bundle ids that several folders carry: most often a folder copied to
 * start the next issue, published as a second copy of the old bundle.
 * The command gives the later folder its own id (which id is the
 * operator's to choose).
 */
function sharedIdsNote(report: RunReport): string {
  const shared = report.plan.pipelines.flatMap((pipeline) => pipeline.ids_shared.first);
  const total = report.plan.pipelines.reduce((sum, pipeline) => sum + pipeline.ids_shared.total, 0);
  const first = shared[0];
  if (first === undefined) return '';
  const named = shared
    .slice(0, 3)
    .map((one) => `'${one.id}' (${namesInNote(one.folders, one.folders.length)})`)
    .join(', ');
  const more = total > 3 ? ` and ${total - 3} more` : '';
  const copy = first.folders[first.folders.length - 1] ?? '';
  return `same id: ${total === 1 ? 'a bundle id is' : `${total} bundle ids are`} carried by more than one folder: ${named}${more}; a copied folder keeps the manifest it was copied with, so it is published as another copy of that bundle: give each copy its own id (sealkit distribute manifest ${shellWord(copy)} --id NEW_ID --replace), and where a copy was published already, move its published folder away first (a bundle path keeps one id)\n\n`;
}

/**
 * Why a run found nothing to publish, and where a manifest was most likely
 * forgotten: the folders outside every bundle that hold files, and files
 * lying directly in a source root (never published: a bundle is a folder
 * below it), per pipeline when several have some. Names are shown escaped
 * (a control character never reaches the terminal).
 */
function noBundleLines(report: RunReport): string[] {
  const lines = ['no bundle found under the source roots'];
  const all = report.plan.pipelines;
  const withFolders = all.filter((pipeline) => pipeline.dirs_without_manifest.total > 0);
  const withFiles = all.filter((pipeline) => pipeline.files_at_source_root.total > 0);
  if (withFolders.length === 0 && withFiles.length === 0) return lines;
  // Grouped under each pipeline's id as soon as two pipelines have something to show.
  const grouped = new Set([...withFolders, ...withFiles]).size > 1;
  const definition = 'a bundle is a folder below a source root holding manifest.json';
  if (withFolders.length > 0) {
    const only = grouped ? undefined : withFolders[0]?.dirs_without_manifest.total;
    const these =
      only === undefined
        ? 'these hold'
        : only === 1
          ? 'this folder holds'
          : `${counted(only, 'folder')} hold`;
    lines.push(`${definition}; ${these} files but none:`);
    lines.push(...looseLines(withFolders, (pipeline) => pipeline.dirs_without_manifest, 'folder', grouped));
  }
  if (withFiles.length > 0) {
    lines.push(
      withFolders.length > 0
        ? 'files directly in a source root are never published (move them into a folder below it):'
        : `${definition}; files directly in the root are never published:`,
    );
    lines.push(...looseLines(withFiles, (pipeline) => pipeline.files_at_source_root, 'file', grouped));
  }
  lines.push(
    withFolders.length > 0
      ? `write one with: sealkit distribute manifest ${oneFolder(all) ?? '<folder>'} --id <id>`
      : 'move them into a folder below the root, then write its manifest with: sealkit distribute manifest <folder> --id <id>',
  );
  return lines;
}

/** The names one list of `noBundleLines` shows, `grouped` under each pipeline's id. */
function looseLines(
  pipelines: readonly PipelinePlan[],
  pick: (pipeline: PipelinePlan) => PipelinePlan['dirs_without_manifest'],
  noun: string,
  grouped: boolean,
): string[] {
  const indent = grouped ? '    ' : '  ';
  const lines: string[] = [];
  for (const pipeline of pipelines) {
    const { total, first } = pick(pipeline);
    if (grouped) lines.push(`  pipeline ${pipeline.id}, ${counted(total, noun)}:`);
    lines.push(...first.map((name) => `${indent}${escapedBytes(Buffer.from(name, 'utf8'))}`));
    if (total > first.length) lines.push(`${indent}and ${total - first.length} more`);
  }
  return lines;
}

/**
 * The REASON column: the code, or for `skipped_newer` both instants, and for
 * a replacement over the same files the code and both instants
 * (docs/distributor.md#commands).
 */
function reasonText(item: {
  readonly reason_code?: string;
  readonly reason?: string;
  readonly destination_created?: string;
  readonly source_created?: string;
}): string {
  if (item.destination_created !== undefined && item.source_created !== undefined)
    return item.reason === 'same_files'
      ? `same_files: only created changed, ${item.destination_created} -> ${item.source_created}`
      : `destination newer than source: ${item.destination_created} > ${item.source_created}`;
  return item.reason_code ?? item.reason ?? '';
}

function planText(report: RunReport): string {
  const lines = ['dry run: the plan a real run would apply (nothing written)'];
  // Said, so that an audit's skipped_same is read for what it proves: the bytes, not only the sizes.
  if (report.plan.outputs_compared_by === 'sha256')
    lines.push('published outputs compared by SHA-256 (--checksum), not only by size');
  lines.push('');
  if (report.aborted) lines.push('a real run would stop before any write (the refusals are on stderr)', '');
  lines.push(...whereLines(report));
  for (const item of report.plan.items) lines.push(...planItemLines(item));
  if (report.plan.items.length === 0 && report.failures.length === 0) lines.push(...noBundleLines(report));
  else {
    for (const note of [
      sameFilesNote(report, false),
      linkNote(report, false),
      looseNote(report),
      unlistedNote(report),
      notRenderedNote(report),
      sharedIdsNote(report),
      unlistedBesideNote(report),
    ])
      if (note !== '') lines.push('', note.trimEnd());
  }
  lines.push(...uncheckedLines(report.unchecked ?? []));
  // One blank line before the counts, also when the plan ends with one.
  const body = lines.join('\n').replace(/\n+$/, '');
  return `${body}\n\nwould be: ${countsLine(report)}\n`;
}

/**
 * Where each destination the plan writes to puts its bundles, so that a
 * bundle's place (the prefix and the bundle's folders joined) is seen
 * before the first run, not found by listing the bucket after it.
 */
function whereLines(report: RunReport): string[] {
  // The first bundle each destination would write, as the example of its place.
  const first = new Map<string, string>();
  for (const item of report.plan.items)
    if (item.outcome === 'published' || item.outcome === 'replaced') {
      const key = `${item.pipeline_id}\u0000${item.destination_id}`;
      if (!first.has(key)) first.set(key, item.bundle_dir);
    }
  const lines = report.plan.pipelines.flatMap((pipeline) =>
    pipeline.destinations.flatMap((d) => {
      const example = first.get(`${pipeline.id}\u0000${d.id}`);
      if (d.location === undefined || example === undefined) return [];
      return [
        `  ${pipeline.id} -> ${d.id}: ${quotedName(d.location)} then each bundle's folder; the first: ${quotedName(`${d.location}${example}/`)}`,
      ];
    }),
  );
  return lines.length === 0 ? [] : ['bundles go to:', ...lines, ''];
}

/**
 * What the dry run left unchecked because checking takes a write, and what
 * it read instead (docs/distributor.md#commands): a plan that says
 * `published` at a store that a real run refuses at its probe would read
 * as a promise.
 */
function uncheckedLines(unchecked: readonly UncheckedByDryRun[]): string[] {
  if (unchecked.length === 0) return [];
  const lines = [
    '',
    'not checked by a dry run, as it takes a write: whether the store honours conditional writes; a real run probes it before its first write to each destination below, and refuses one that does not (destination_conditional_writes_unsupported)',
  ];
  for (const item of unchecked) {
    const where = `${item.pipeline_id} -> ${item.destination_id}`;
    switch (item.bucket_versioning) {
      case 'enabled':
        lines.push(
          `  ${where}: the bucket has versioning on; Ceph RGW ignores conditional writes on a versioned bucket, so a real run there is refused destination_versioning_unsupported (AWS S3 honours them)`,
        );
        break;
      case 'suspended':
        // Measured on Ceph RGW 16: with versioning suspended the probe passes and the run publishes.
        lines.push(
          `  ${where}: the bucket has versioning suspended (it was on once); the real run's probe decides whether the store honours conditional writes there`,
        );
        break;
      case 'off':
        lines.push(`  ${where}: the bucket has no versioning`);
        break;
      case 'unknown':
        lines.push(`  ${where}: the bucket's versioning could not be read (s3:GetBucketVersioning)`);
        break;
    }
  }
  return lines;
}

/** One item of the plan, in the outcome words the report uses (docs/distributor.md#outcomes). */
function planItemLines(item: PlanItem): string[] {
  const where = `${item.pipeline_id} -> ${item.destination_id}: ${item.bundle_dir}`;
  switch (item.outcome) {
    case 'published':
    case 'replaced': {
      const reason = reasonText(item);
      const lines = [`${item.outcome} ${where}${reason === '' ? '' : ` (${reason})`}`];
      // Said as what the file is, not the state's kind: an asset copied under
      // `source: false` is a copy, not a sign that `source` was ignored.
      const kept = new Set<string>(item.kept ?? []);
      for (const output of item.outputs)
        lines.push(
          kept.has(output.path)
            ? `  keep ${output.path} (there already with these bytes, ${counted(output.size, 'byte')})`
            : `  write ${output.path} (${output.kind === 'generated' ? `page from ${output.source_path}` : 'copy'}, ${counted(output.size, 'byte')})`,
        );
      lines.push('  write .distributor.json (last)');
      // Only what leaves the destination: an old output the new bundle writes
      // again is replaced, and listing it as deleted hid the one that goes.
      const written = new Set<string>(item.outputs.map((output) => output.path));
      for (const path of item.previous?.outputs ?? [])
        if (!written.has(path)) lines.push(`  delete old ${path}`);
      return lines;
    }
    case 'skipped_same':
      return [`${item.outcome} ${where}`];
    case 'skipped_newer': {
      const reason = reasonText(item);
      return [`${item.outcome} ${where}${reason === '' ? '' : ` (${reason})`}`];
    }
    case 'conflict':
    case 'refused':
      return [`${item.outcome} ${where} (${item.reason_code})`];
  }
}
