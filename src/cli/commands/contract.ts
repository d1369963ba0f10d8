import { existsSync } from 'node:fs';
import { join } from 'node:path';
import './contract-schemas-interpreted.js';
import {
  type CanonicalProjection,
  type ContractProject,
  contractJsonSchemas,
  contractProjectsInFolder,
  openContractProjectCached,
  projectionTree,
  type ContractResourceOutcome as ResourceOutcome,
  refuseContract,
  writeContractOutput,
} from '../../contracts/index.js';
import { type Refusal, refuseAll } from '../../core/refusal/index.js';
import { shellWord } from '../../core/shell/index.js';
import type { Command, CommandResult } from '../command.js';
import { counted, formatRefusal, type JsonObjectOut, refusalJson } from '../output.js';
import { nonEmptyOption, parseCommandArgs, requireArgument, requireOption, textOption } from '../parse.js';

const EXIT_CODES = 'Exit codes: 0 success, 1 usage error, 2 refused (with a reason code), 70 internal error.';

const VALIDATE_USAGE = `Usage: sealkit contract validate DIR [--json]

Validates a contract project: every *.yaml / *.yml file under DIR (names
starting with a dot are skipped, symlinks are refused) is one resource of kind
Source, Model, SemanticModel or Dashboard. Checks strict YAML, the kind's
schema, unique ids, every reference (ids first, project-local names as a
fallback), model SQL (DuckDB parser, allowlisted constructs only), typed
literals, links and dependency cycles. Every file gets an outcome (in byte
order of its path relative to DIR). Each refused file's errors are printed on
stderr, all of them at once (up to 50, then a count), each with the file as
DIR/<path>, line and column, key path and a hint; a file whose references may
mean a refused file is reported as blocked.

Flags:
  --json       print one JSON object on stdout
  -h, --help   show this help

${EXIT_CODES}

Examples:
  sealkit contract validate retail
  sealkit contract validate retail --json`;

const PROJECT_USAGE = `Usage: sealkit contract project DIR [--resource ID] [--out OUT] [--json]

Validates the project, then prints for each Source, Model and SemanticModel its
id, kind, version and the sha256: digest of its canonical leapview.contract/v1
bytes (RFC 8785). Resources without authored contract metadata are listed as
unversioned; dashboards are consumers and have no projection.

Flags:
  --resource ID   project only the resource with this id
  --out OUT       also write the canonical bytes: OUT/resources/<id>.json and
                  OUT/index.json; OUT must not exist (it is created in one
                  atomic step; nothing is written when anything is refused)
  --json          print one JSON object on stdout
  -h, --help      show this help

${EXIT_CODES}

Examples:
  sealkit contract project retail
  sealkit contract project retail --resource retail.source.orders --out projections`;

const SCHEMAS_USAGE = `Usage: sealkit contract schemas --out OUT [--json]

Writes the JSON Schemas generated from sealkit's authoring schemas (one per
kind, resource.schema.json for any kind) and the projection schema into OUT,
which must not exist. Point your editor's YAML language server at them.

Flags:
  --out OUT    the folder to create
  --json       print one JSON object on stdout
  -h, --help   show this help

${EXIT_CODES}

Examples:
  sealkit contract schemas --out schemas`;

// Contract projects are the operator's own files: refusals are located (docs/refusals.md#two-policies).
const DISCLOSURE = 'located';

function outcomeJson(outcome: ResourceOutcome): JsonObjectOut {
  const item: { [key: string]: JsonObjectOut[string] } = {
    file: outcome.file,
    path: outcome.displayPath,
    status: outcome.status,
  };
  if (outcome.kind !== null) item.kind = outcome.kind;
  if (outcome.status === 'valid' && outcome.id !== null) item.id = outcome.id;
  if (outcome.status === 'blocked') item.blocked_by = [...outcome.blockedBy];
  if (outcome.refusal !== null) {
    const record = refusalJson(outcome.refusal, DISCLOSURE);
    item.reason_code = record.reason_code;
    if (record.field !== undefined) item.field = record.field;
    if (record.location !== undefined) item.location = { ...record.location };
    if (record.hint !== undefined) item.hint = record.hint;
    if (record.also !== undefined) item.also = record.also.map((other) => ({ ...other }) as JsonObjectOut);
    if (record.omitted !== undefined) item.omitted = record.omitted;
  }
  return item;
}

function outcomeLine(outcome: ResourceOutcome, width: number): string {
  const head = `${outcome.status.padEnd(8)} ${(outcome.kind ?? '-').padEnd(13)}  ${outcome.displayPath.padEnd(width)}`;
  if (outcome.status === 'valid') return `${head}  ${outcome.id}\n`;
  if (outcome.status === 'blocked') return `${head}  not checked: ${blockedReason(outcome.blockedBy)}\n`;
  const refusal = outcome.refusal as Refusal;
  const count = 1 + refusal.also.length + refusal.omitted;
  return `${head}  ${refusal.code}${count > 1 ? ` and ${count - 1} more` : ''}\n`;
}

/** `it refers to what dir/a.yaml may declare`: the refused files that stop the check, by name. */
function blockedReason(files: readonly string[]): string {
  if (files.length === 0) return 'it refers to what a refused file may declare';
  const shown = files.slice(0, 3).join(', ');
  const more = files.length > 3 ? ` and ${files.length - 3} more` : '';
  return files.length === 1
    ? `it refers to what ${shown} may declare, which is refused`
    : `it refers to what refused files may declare: ${shown}${more}`;
}

function outcomeLines(outcomes: readonly ResourceOutcome[]): string {
  const width = Math.max(0, ...outcomes.map((outcome) => outcome.displayPath.length));
  return outcomes.map((outcome) => outcomeLine(outcome, width)).join('');
}

/**
 * The report of a project with refused files: the per-file outcomes on
 * stdout, every refused file's errors on stderr (up to 50, then a count),
 * exit 2; with --json one object whose items carry each file's errors.
 */
function refusedProject(
  project: ContractProject,
  dir: string,
  command: 'validate' | 'project',
): CommandResult {
  const outcomes = project.outcomes;
  // A bug is not a property of the project: it exits 70 with fixed text, like any internal error.
  const internal = outcomes.find((outcome) => outcome.refusal?.category === 'internal');
  if (internal?.refusal) throw internal.refusal;
  const refused = outcomes.flatMap((outcome) => (outcome.refusal === null ? [] : [outcome.refusal]));
  const blocked = outcomes.filter((outcome) => outcome.status === 'blocked').length;
  const summary = `${refused.length} of ${outcomes.length} files refused${blocked > 0 ? `, ${blocked} blocked` : ''}\n`;
  const below = projectsBelow(dir, command);
  const projectRefusal = refuseContract('contract_project_invalid', {
    role: 'project',
    ...(below === undefined ? {} : { hint: below }),
  });
  // Every error of every refused file, in file order then line order, as stderr lists them.
  const errors = refused.length === 0 ? undefined : refuseAll(refused);
  return {
    text: `${outcomeLines(outcomes)}${summary}`,
    errors:
      formatRefusal(errors ?? projectRefusal, DISCLOSURE) +
      (below === undefined || errors === undefined ? '' : `note: ${below}\n`),
    json: {
      status: 'refused',
      ...refusalJson(
        errors === undefined
          ? projectRefusal
          : projectRefusal.withOthers([errors.withOthers([], 0), ...errors.also], errors.omitted),
        DISCLOSURE,
      ),
      items: outcomes.map(outcomeJson),
    },
    refused: true,
  };
}

/**
 * A folder that is no project but holds projects (one of them published,
 * with a ledger of its own): a `contract validate .` one level too high
 * read every project's files, and a dbt workspace's, as one project, and
 * its refusals told the operator to add `kind:` to dbt_project.yml. Said
 * after the refusals, with the command on the first project, as history
 * and replay say it (docs/contracts.md#embedded-ledger).
 */
function projectsBelow(dir: string, command: 'validate' | 'project'): string | undefined {
  // A dbt workspace beside the projects holds YAML too, but is none.
  const projects = contractProjectsInFolder(dir)?.filter(
    (project) => project.ledger !== undefined || !existsSync(join(project.path, 'dbt_project.yml')),
  );
  const first = projects?.[0];
  if (projects === undefined || first === undefined) return undefined;
  const named = projects.slice(0, 5).map((project) => `'${project.path}'`);
  const more = projects.length > named.length ? ` and ${projects.length - named.length} more` : '';
  return `'${dir}' is not a contract project; it holds projects: ${named.join(', ')}${more}. Run: sealkit contract ${command} ${shellWord(first.path)}`;
}

export const contractValidate: Command = {
  path: ['contract', 'validate'],
  usage: VALIDATE_USAGE,
  async run(args): Promise<CommandResult> {
    const { positionals } = parseCommandArgs(
      args,
      { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      VALIDATE_USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireArgument(positionals[0], 'DIR', VALIDATE_USAGE);
    const { project, keepParses } = await openContractProjectCached(dir);
    if (!project.valid) return refusedProject(project, dir, 'validate');
    const outcomes = project.outcomes;
    const counts = new Map<string, number>();
    for (const outcome of outcomes) counts.set(outcome.kind ?? '', (counts.get(outcome.kind ?? '') ?? 0) + 1);
    const summary = [...counts].map(([kind, count]) => `${count} ${kind}`).join(', ');
    keepParses(false);
    return {
      text: `${outcomeLines(outcomes)}${outcomes.length} resources valid (${summary})\n`,
      json: { status: 'ok', valid: outcomes.length, resources: outcomes.map(outcomeJson) },
    };
  },
};

interface ProjectedItem {
  readonly outcome: ResourceOutcome;
  readonly status: 'projected' | 'unversioned' | 'not_contract_bearing';
  readonly projection: CanonicalProjection | null;
}

function projectedItem(project: ContractProject, outcome: ResourceOutcome): ProjectedItem {
  if (outcome.kind === 'Dashboard') return { outcome, status: 'not_contract_bearing', projection: null };
  if (outcome.version === null) return { outcome, status: 'unversioned', projection: null };
  return { outcome, status: 'projected', projection: project.project(outcome.id as string) };
}

function itemJson(item: ProjectedItem): JsonObjectOut {
  const { outcome, projection } = item;
  return {
    file: outcome.file,
    kind: outcome.kind,
    id: outcome.id,
    status: item.status,
    version: projection?.version ?? null,
    compatibility: projection?.compatibility ?? null,
    digest: projection?.digest ?? null,
  };
}

/**
 * The lines of `contract project`: kind, id, then version, compatibility and
 * digest, or the status for a resource without a projection; every column
 * aligned (ids, versions and compatibilities are ASCII).
 */
function itemLines(items: readonly ProjectedItem[]): string {
  const widest = (values: readonly string[]) => Math.max(0, ...values.map((value) => value.length));
  const projections = items.flatMap((item) => (item.projection === null ? [] : [item.projection]));
  const kinds = 'SemanticModel'.length; // the longest kind, so every listing keeps one layout
  const ids = widest(items.map((item) => item.outcome.id ?? ''));
  const versions = widest(projections.map((projection) => projection.version));
  const compatibilities = widest(projections.map((projection) => projection.compatibility));
  return items
    .map((item) => {
      const { outcome, projection } = item;
      const head = `${(outcome.kind ?? '').padEnd(kinds)}  ${(outcome.id ?? '').padEnd(ids)}`;
      if (projection === null) return `${head}  ${item.status.replace(/_/g, '-')}\n`;
      return `${head}  ${projection.version.padEnd(versions)}  ${projection.compatibility.padEnd(compatibilities)}  ${projection.digest}\n`;
    })
    .join('');
}

export const contractProject: Command = {
  path: ['contract', 'project'],
  usage: PROJECT_USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        resource: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      PROJECT_USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireArgument(positionals[0], 'DIR', PROJECT_USAGE);
    const resource = nonEmptyOption(values.resource, '--resource', PROJECT_USAGE);
    const out = textOption(nonEmptyOption(values.out, '--out', PROJECT_USAGE), '--out', PROJECT_USAGE);
    const { project, keepParses } = await openContractProjectCached(dir);
    let items: ProjectedItem[];
    if (resource !== undefined) {
      const selection = project.select(resource);
      if (selection.kind === 'project_invalid') return refusedProject(project, dir, 'project');
      items = [projectedItem(project, selection.outcome)];
    } else {
      if (!project.valid) return refusedProject(project, dir, 'project');
      items = project.outcomes.map((outcome) => projectedItem(project, outcome));
    }
    const projections = items.flatMap((item) => (item.projection === null ? [] : [item.projection]));
    let written: number | null = null;
    if (out !== undefined) {
      const tree = projectionTree(projections);
      writeContractOutput(out, tree);
      written = tree.length;
    }
    const footer =
      written === null
        ? ''
        : `wrote ${counted(written, 'file')} (${counted(projections.length, 'projection')} and index.json)\n`;
    keepParses(false);
    return {
      text: `${itemLines(items)}${footer}`,
      json: {
        status: 'ok',
        profile: 'leapview.contract/v1',
        resources: items.map(itemJson),
        ...(written === null ? {} : { written }),
      },
    };
  },
};

export const contractSchemas: Command = {
  path: ['contract', 'schemas'],
  usage: SCHEMAS_USAGE,
  async run(args): Promise<CommandResult> {
    const { values } = parseCommandArgs(
      args,
      { out: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      SCHEMAS_USAGE,
      { min: 0, max: 0 },
    );
    const out = textOption(requireOption(values.out, '--out', SCHEMAS_USAGE), '--out', SCHEMAS_USAGE);
    const files = contractJsonSchemas();
    writeContractOutput(out, files);
    const names = files.map((file) => file.path.join('/'));
    return {
      text: `${names.map((name) => `wrote ${name}\n`).join('')}`,
      json: { status: 'ok', files: names },
    };
  },
};
