import {
  isSourceId,
  SCAFFOLD_EDITIONS,
  type ScaffoldResult,
  type ScaffoldStatus,
  scaffold,
} from '../../scaffold/index.js';
import type { CliIo, Command, CommandResult } from '../command.js';
import { Interruption, interruptedBy } from '../interruption.js';
import { jsonOut, paintRefusals, wantsColour } from '../output.js';
import { parseCommandArgs, requireOption, textOption } from '../parse.js';
import { quotedValue } from '../quote-value.js';
import { UsageError } from '../usage-error.js';
import { evidenceFlags } from './evidence-flags.js';
import { faultsFromEnvironment } from './scaffold-faults.js';

const OPTIONS = {
  edition: { type: 'string' },
  workspace: { type: 'string' },
  'source-id': { type: 'string' },
  'mapping-file': { type: 'string' },
  'inventory-file': { type: 'string' },
  'run-manifest': { type: 'string' },
  'source-binding-id': { type: 'string' },
  'max-evidence-age': { type: 'string' },
  'dry-run': { type: 'boolean' },
  show: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `Usage: sealkit scaffold --edition bigquery|snowflake --workspace DIR --source-id ID
                        --mapping-file FILE --inventory-file FILE --run-manifest FILE
                        --source-binding-id ALIAS --max-evidence-age DURATION
                        [--dry-run [--show]] [--json]

Generates editable dbt Silver models for one source into a client workspace
(made by sealkit edition new), create-only: models/migration/generated/ID/ is
staged in .scaffold-staging/ID/, sealed, verified and published with one
atomic no-replace rename, or nothing is published. An existing output is
never touched (output_exists). Reads only the named local files.

Flags:
  --edition NAME               bigquery or snowflake (required)
  --workspace DIR              the client workspace root (required); for snowflake the folder
                               that holds kit/, not kit/ (which sealkit edition check takes)
  --source-id ID               a generic alias, ^[a-z][a-z0-9_]{0,39}$ (required); never a client name
  --mapping-file FILE          the reviewed mapping (version 1 JSON)
  --inventory-file FILE        the saved --dry-run report of the load (owner-only file)
  --run-manifest FILE          run-manifests/<run_id>.json of the completed load (owner-only)
  --source-binding-id ALIAS    [a-z][a-z0-9_]{0,39}; must equal the alias in both artifacts
  --max-evidence-age DURATION  maximum age of the run: 36h, 7d, 90m, 45s or seconds; no default
  --dry-run                    run every check that needs no write and print the planned files;
                               writes nothing, not even a lock file
  --show                       with --dry-run: each planned file also carries its exact contents
                               ("content"), in plan order
  --json                       accepted for symmetry with every other command: the output is
                               always one JSON object; with it, nothing is printed on stderr
  -h, --help                   show this help

Prints exactly one JSON object on stdout, with or without --json: status,
reason_codes (every condition found, most decisive first), stage and, where
relevant, the project-relative output or staging path, staging_state and a
repair command. After a publication, one line on stderr names the variable
dbt reads the Bronze namespace from (MIGRATION_BRONZE_NAMESPACE), never its
value. Without --json, a run that is refused or publishes with a condition
also says why on stderr (error[CODE]: message, with the artifact role and
field where known), so discarding stdout hides nothing.

Exit codes: 0 published (or plan_only with --dry-run), 1 usage error (nothing
written), 2 refused, 3 published with published_permissions_not_normalized or
published_durability_unknown, 4 publish_unverified, 70 internal error,
130 / 143 / 129 stopped by SIGINT / SIGTERM / SIGHUP before publication
(status refused, interrupted; nothing published).

Examples:
  sealkit scaffold --edition bigquery --workspace acme-retail --source-id shop --mapping-file evidence/mapping.json --inventory-file evidence/dry-run.json --run-manifest evidence/run-manifests/RUN_ID.json --source-binding-id shop_main --max-evidence-age 36h --dry-run
  sealkit scaffold --edition bigquery --workspace acme-retail --source-id shop --mapping-file evidence/mapping.json --inventory-file evidence/dry-run.json --run-manifest evidence/run-manifests/RUN_ID.json --source-binding-id shop_main --max-evidence-age 36h --dry-run --show | jq -r '.files[] | "== " + .path, .content'`;

export const scaffoldCommand: Command = {
  path: ['scaffold'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 0 });
    const edition = values.edition;
    if (edition === undefined) throw new UsageError('missing option --edition', USAGE);
    if (!(SCAFFOLD_EDITIONS as readonly string[]).includes(edition)) {
      throw new UsageError(
        `--edition takes ${SCAFFOLD_EDITIONS.join(' or ')}, not ${quotedValue(edition)}`,
        USAGE,
      );
    }
    const workspace = textOption(requireOption(values.workspace, '--workspace', USAGE), '--workspace', USAGE);
    const sourceId = values['source-id'];
    if (sourceId === undefined) throw new UsageError('missing option --source-id', USAGE);
    // The library refuses it too (source_id_invalid); on the command line it is a malformed flag value.
    if (!isSourceId(sourceId)) {
      throw new UsageError(
        `--source-id takes a generic alias: a lowercase letter, then up to 39 lowercase letters, digits or _, not ${quotedValue(sourceId)}`,
        USAGE,
      );
    }
    if (values.show === true && values['dry-run'] !== true) {
      throw new UsageError('--show needs --dry-run (it shows the files a run would publish)', USAGE);
    }
    const json = values.json === true;
    const evidence = evidenceFlags(values, USAGE);

    const faults = faultsFromEnvironment(process.env, USAGE);
    // SIGINT and SIGTERM before the rename stop the run at its next step
    // boundary (status refused, `interrupted`, staging left as it was);
    // after the rename the run completes, and a signal after the result
    // changes nothing (src/cli/interruption.ts). With --json stderr stays silent.
    const interruption = Interruption.start({ note: json ? undefined : io.stderr });
    let result: ScaffoldResult;
    try {
      result = await scaffold({
        edition,
        workspace,
        sourceId,
        mappingFile: evidence.mappingFile,
        inventoryFile: evidence.inventoryFile,
        runManifestFile: evidence.runManifestFile,
        sourceBindingId: evidence.sourceBindingId,
        maxEvidenceAge: evidence.maxEvidenceAge,
        dryRun: values['dry-run'] === true,
        show: values.show === true,
        signal: interruption.signal,
        // Printed before the staging lock is released: the lock goes last
        // (docs/scaffold.md#the-publication-protocol).
        onResult: (outcome) => printResult(io, outcome, json),
        faults: faults.library,
      });
    } finally {
      await interruption.finish();
    }
    if (!result.reason_codes.includes('interrupted'))
      interruption.completed(PUBLISHED.has(result.status) ? 'the publication completed' : 'the run finished');
    return {
      text: '',
      json: jsonOut(result),
      printed: true,
      ...OUTCOME_OF[result.status],
      // Stopped by a signal before publication: exit 130 or 143, as every
      // writing command (docs/cli.md#signals).
      ...(result.reason_codes.includes('interrupted') ? interruptedBy(interruption.received) : {}),
      afterOutput: faults.afterResult,
    };
  },
};

/**
 * What each status means to the CLI; src/cli/exit-codes.ts turns it into
 * the exit code (0, 2, 3 or 4), the only place exit codes are decided.
 */
const OUTCOME_OF: {
  readonly [S in ScaffoldStatus]: Pick<CommandResult, 'refused' | 'publication'>;
} = {
  published: {},
  plan_only: {},
  refused: { refused: true },
  published_permissions_not_normalized: { publication: 'with_condition' },
  published_durability_unknown: { publication: 'with_condition' },
  publish_unverified: { publication: 'unverified' },
};

function printResult(io: CliIo, result: ScaffoldResult, json: boolean): void {
  io.stdout.write(`${JSON.stringify(result)}\n`);
  if (json) return;
  // `>/dev/null` hides the object, never why the run did not publish cleanly.
  const error = outcomeError(result);
  if (error !== undefined) io.stderr.write(wantsColour(io.stderr) ? paintRefusals(error) : error);
  const hint = namespaceHint(result);
  if (hint !== undefined) io.stderr.write(hint);
}

/**
 * A run that did not publish cleanly (refused, interrupted, published with
 * a condition, unverified), in the form every sealkit refusal takes on
 * stderr: its first reason code and that code's fixed message, then the
 * artifact role and the allowlisted field when the result has them, the
 * canonical table and the generated output it is about, and the
 * project-relative staging path and repair command a run leaves. Nothing
 * else: the scaffolder is a private domain (docs/refusals.md#two-policies),
 * and the result object on stdout keeps the rest.
 */
export function outcomeError(result: ScaffoldResult): string | undefined {
  const code = result.reason_codes[0];
  if (code === undefined || result.message === undefined) return undefined;
  const lines = [`error[${code}]: ${result.message}`];
  if (result.role !== undefined) lines.push(`  = in: ${result.role}`);
  if (result.field !== undefined) lines.push(`  = field: ${result.field}`);
  // A canonical table and a generated file's path: sealkit's own names, already in the result on stdout.
  if (result.table !== undefined) lines.push(`  = table: ${result.table}`);
  if (result.output !== undefined) lines.push(`  = output: ${result.output}`);
  if (result.staging !== undefined) {
    const state = result.staging_state === undefined ? '' : ` (left ${result.staging_state})`;
    lines.push(`  = staging: ${result.staging}${state}`);
  }
  if (result.repair !== undefined) lines.push(`  = repair, ${fromProject(result)}: ${result.repair}`);
  return `${lines.join('\n')}\n`;
}

/** Where a repair command runs: its paths are relative to the dbt project. */
function fromProject(result: ScaffoldResult): string {
  return result.project_dir === 'kit' ? "from the workspace's kit/ folder" : 'from the workspace folder';
}

/**
 * After a publication: which variable the generated source block reads its
 * Bronze schema from. Its name only, never a value: the namespace is the
 * evidence's and stays out of every output (docs/scaffold.md#building-the-models).
 */
export function namespaceHint(result: ScaffoldResult): string | undefined {
  if (!PUBLISHED.has(result.status) || result.source_id === undefined) return undefined;
  return (
    `sealkit scaffold: source migration_bronze_${result.source_id} reads its schema from ${NAMESPACE_VARIABLE};\n` +
    `  export it to this source's Bronze namespace (bronze_namespace in its dry run) before dbt runs\n` +
    '  these models, one dbt invocation per namespace.\n'
  );
}

const NAMESPACE_VARIABLE = 'MIGRATION_BRONZE_NAMESPACE';

/** The statuses whose complete output is published (docs/scaffold.md#the-result-object-and-exit-codes). */
const PUBLISHED: ReadonlySet<ScaffoldStatus> = new Set<ScaffoldStatus>([
  'published',
  'published_permissions_not_normalized',
  'published_durability_unknown',
]);
