import { didYouMean, type Refusal } from '../../core/refusal/index.js';
import { shellWord } from '../../core/shell/index.js';
import {
  isEditionId,
  type NewWorkspaceResult,
  newWorkspace,
  refuseEdition,
  STARTER_EDITION_IDS,
  WORKSPACE_STEPS,
  type WorkspacePlan,
  type WorkspaceStep,
} from '../../editions/index.js';
import { escapedBytes, invalidTextBytes } from '../argv-text.js';
import type { Command, CommandResult } from '../command.js';
import { type FaultVariable, faultsFromVariable } from '../fault-hooks.js';
import { runInterruptible } from '../interruption.js';
import { parseCommandArgs, requireArgument, requireOption } from '../parse.js';
import { UsageError } from '../usage-error.js';

/** The test-only fault variable of `edition new` (docs/editions.md#the-test-only-fault-hook). */
export const EDITION_FAULTS: FaultVariable<WorkspaceStep> = {
  name: 'SEALKIT_EDITION_FAULTS',
  points: WORKSPACE_STEPS,
  label: 'sealkit edition new',
  doc: 'docs/editions.md',
};

const OPTIONS = {
  edition: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `Usage: sealkit edition new --edition bigquery|snowflake [--dry-run] [--json] DEST

Creates a client workspace at DEST from one starter edition:
  bigquery   dbt project retail_analytics; the workspace root is the project
  snowflake  dbt project reliable_pipeline; the project is DEST/kit/

DEST must not exist and must lie outside the sealkit installation or checkout
(checked with symlinks resolved). Its parent folder must exist and be
writable (a dry run checks that too); neither DEST nor a folder on the way
to it may be a symbolic link (edition check, which the workspace is made
for, follows none). CI-only .ci/ folders are left out; no marker file is
written. The workspace is staged beside DEST, verified, and published with
one atomic no-replace rename: a failed run leaves nothing at DEST.
Folders are created 0700 and files 0600 (owner-only).

Flags:
  --edition NAME   bigquery or snowflake (required)
  --dry-run        run every check and print the plan; write nothing
  --json           print one JSON object on stdout
  -h, --help       show this help

Exit codes: 0 created (or planned), 1 usage error, 2 refused (with a reason code),
70 internal error, 130 / 143 / 129 stopped by SIGINT / SIGTERM / SIGHUP before
the workspace was published (workspace_interrupted: what the run staged is
removed, nothing is at DEST). A signal after the publication changes nothing:
the result stands.

Examples:
  sealkit edition new --edition bigquery acme-retail
  sealkit edition new --edition snowflake --dry-run acme-pipeline`;

function octal(mode: number): string {
  return `0${mode.toString(8)}`;
}

/**
 * A dry run lists every folder and file it would create (the plan); a real
 * run says what it created in two lines and how to go on, from the folder
 * the user named (`--json` lists every file).
 */
function describe(plan: WorkspacePlan, created: boolean, dest: string): string {
  const verb = created ? 'created' : 'would create';
  const project = plan.projectDir === '.' ? 'the workspace root' : `${plan.projectDir}/`;
  const lines = [
    `${verb} a ${plan.edition} workspace: dbt project ${plan.projectName} at ${project}`,
    `  ${plan.dirs.length} folders (${octal(plan.dirMode)}), ${plan.files.length} files (${octal(plan.fileMode)})`,
  ];
  if (!created) {
    lines.push(
      ...plan.dirs.map((dir) => `  create ${dir}/`),
      ...plan.files.map((file) => `  create ${file.path}`),
    );
  }
  lines.push(...plan.skipped.map((path) => `  skipped ${path}/ (CI only)`));
  if (created) {
    // DEST as typed (`acme/` stays `acme/`); a folder under it is joined
    // without its trailing slashes, so `acme//fixtures` is never printed.
    const base = dest.replace(/(?<=.)\/+$/, '');
    const project = plan.projectDir === '.' ? dest : `${base}/${plan.projectDir}`;
    const fixtures = plan.projectDir === '.' ? `${base}/fixtures` : `${project}/fixtures`;
    lines.push(`next: sealkit edition check ${shellWord(project)} --fixtures ${shellWord(fixtures)}`);
  }
  return `${lines.join('\n')}\n`;
}

const hintOf = (hint: string | undefined): { readonly hint?: string } => (hint === undefined ? {} : { hint });

export const editionNew: Command = {
  path: ['edition', 'new'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 1 });
    const edition = requireOption(values.edition, '--edition', USAGE);
    if (!isEditionId(edition))
      throw new UsageError(
        `invalid value '${edition}' for option --edition (one of: ${STARTER_EDITION_IDS.join(', ')})`,
        USAGE,
        hintOf(didYouMean(edition, STARTER_EDITION_IDS)),
      );
    // Node hands on bytes that are not UTF-8 as U+FFFD: a folder would be
    // made under a name nobody typed (docs/editions.md#sealkit-edition-new).
    const notText = positionals[0] === undefined ? undefined : invalidTextBytes(positionals[0]);
    if (notText !== undefined) {
      throw refuseEdition('destination_invalid', {
        location: { path: escapedBytes(notText) },
        hint: 'DEST holds bytes that are not UTF-8 (shown as \\xNN): name the destination in UTF-8',
      });
    }
    const dest = requireArgument(positionals[0], 'DEST', USAGE);
    const faults = faultsFromVariable(EDITION_FAULTS, process.env, USAGE);
    // A signal before the rename stops the copy (src/cli/interruption.ts).
    const outcome = await runInterruptible<NewWorkspaceResult>(
      {
        io,
        json: values.json === true,
        disclosure: 'located',
        stoppedBy: (error): error is Refusal => refuseEdition.is(error, 'workspace_interrupted'),
        done: (made) => (made.status === 'created' ? 'the workspace was published' : 'the plan was complete'),
      },
      (signal) =>
        newWorkspace({
          edition,
          dest,
          dryRun: values['dry-run'] === true,
          signal,
          ...(faults.library === undefined ? {} : { faults: faults.library }),
        }),
    );
    if (outcome.kind === 'interrupted') return { ...outcome.result, afterOutput: faults.afterResult };
    const result = outcome.value;
    const { plan } = result;
    return {
      afterOutput: faults.afterResult,
      text: describe(plan, result.status === 'created', dest),
      json: {
        status: result.status,
        edition: plan.edition,
        project_name: plan.projectName,
        project_dir: plan.projectDir,
        dir_mode: octal(plan.dirMode),
        file_mode: octal(plan.fileMode),
        dirs: plan.dirs,
        files: plan.files.map((file) => ({ path: file.path, sha256: file.sha256, bytes: file.bytes })),
        skipped: plan.skipped,
      },
    };
  },
};
