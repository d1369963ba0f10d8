import {
  type CanonicalProjection,
  type ContractProject,
  contractJsonSchemas,
  openContractProject,
  projectionTree,
  type ContractResourceOutcome as ResourceOutcome,
  refuseContract,
  writeContractOutput,
} from '../../contracts/index.js';
import { Refusal, type RefusalRecord } from '../../core/refusal/index.js';
import type { CliIo, Command, CommandResult } from '../command.js';
import type { JsonObjectOut } from '../output.js';
import { parseCommandArgs } from '../parse.js';
import { UsageError } from '../usage-error.js';

const EXIT_CODES = 'Exit codes: 0 success, 1 usage error, 2 refused (with a reason code), 70 internal error.';

const VALIDATE_USAGE = `Usage: sealkit contract validate DIR [--json]

Validates a contract project: every *.yaml / *.yml file under DIR (names
starting with a dot are skipped, symlinks are refused) is one resource of kind
Source, Model, SemanticModel or Dashboard. Checks strict YAML, the kind's
schema, unique ids, every reference (ids first, project-local names as a
fallback), model SQL (DuckDB parser, allowlisted constructs only), typed
literals, links and dependency cycles. Every file gets an outcome; files are
numbered in byte order of their path relative to DIR, and a refused file is
reported by number, reason code and field path, never by name.

Options:
  --json       print one JSON object on stdout
  -h, --help   show this help

${EXIT_CODES}`;

const PROJECT_USAGE = `Usage: sealkit contract project DIR [--resource ID] [--out OUT] [--json]

Validates the project, then prints for each Source, Model and SemanticModel its
id, kind, version and the sha256: digest of its canonical leapview.contract/v1
bytes (RFC 8785). Resources without authored contract metadata are listed as
unversioned; dashboards are consumers and have no projection.

Options:
  --resource ID   project only the resource with this id
  --out OUT       also write the canonical bytes: OUT/resources/<id>.json and
                  OUT/index.json; OUT must not exist (it is created in one
                  atomic step; nothing is written when anything is refused)
  --json          print one JSON object on stdout
  -h, --help      show this help

${EXIT_CODES}`;

const SCHEMAS_USAGE = `Usage: sealkit contract schemas --out OUT [--json]

Writes the JSON Schemas generated from sealkit's authoring schemas (one per
kind, resource.schema.json for any kind) and the projection schema into OUT,
which must not exist. Point your editor's YAML language server at them.

Options:
  --out OUT    the folder to create
  --json       print one JSON object on stdout
  -h, --help   show this help

${EXIT_CODES}`;

/**
 * A refusal that carries the per-file outcomes with it, so `--json` prints
 * every item. Items hold only numbers, kinds, ids of valid resources,
 * statuses and reason codes with allowlisted field paths.
 */
class ItemizedRefusal extends Refusal {
  readonly items: readonly JsonObjectOut[];

  constructor(cause: Refusal, items: readonly JsonObjectOut[]) {
    super(
      cause.code,
      { category: cause.category, message: cause.message },
      {
        ...(cause.role === undefined ? {} : { role: cause.role }),
        ...(cause.field === undefined ? {} : { field: cause.field }),
      },
    );
    this.items = items;
  }

  override toJSON(): RefusalRecord & { readonly items: readonly JsonObjectOut[] } {
    return { ...super.toJSON(), items: this.items };
  }
}

function outcomeJson(outcome: ResourceOutcome): JsonObjectOut {
  const item: Record<string, string | number | null> = { file: outcome.file, status: outcome.status };
  if (outcome.kind !== null) item.kind = outcome.kind;
  if (outcome.status === 'valid' && outcome.id !== null) item.id = outcome.id;
  if (outcome.refusal !== null) {
    item.reason_code = outcome.refusal.code;
    if (outcome.refusal.field !== undefined) item.field = outcome.refusal.field;
  }
  return item;
}

function outcomeLine(outcome: ResourceOutcome): string {
  const kind = (outcome.kind ?? '-').padEnd(13);
  if (outcome.status === 'valid') return `file ${outcome.file}: valid    ${kind}  ${outcome.id}\n`;
  if (outcome.status === 'blocked') {
    return `file ${outcome.file}: blocked  ${kind}  not checked: another file of the project was refused\n`;
  }
  const refusal = outcome.refusal as Refusal;
  const at = refusal.field === undefined ? '' : ` at ${refusal.field}`;
  return `file ${outcome.file}: refused  ${kind}  (${refusal.code})${at}: ${refusal.message}\n`;
}

/** Prints the per-file report (human mode) and throws the project refusal with every item. */
function refuseProject(project: ContractProject, io: CliIo, json: boolean): never {
  const outcomes = project.outcomes;
  // A bug is not a property of the project: it exits 70 with fixed text, like any internal error.
  const internal = outcomes.find((outcome) => outcome.refusal?.category === 'internal');
  if (internal?.refusal) throw internal.refusal;
  if (!json) for (const outcome of outcomes) io.stderr.write(outcomeLine(outcome));
  throw new ItemizedRefusal(
    refuseContract('contract_project_invalid', { role: 'project' }),
    outcomes.map(outcomeJson),
  );
}

export const contractValidate: Command = {
  path: ['contract', 'validate'],
  usage: VALIDATE_USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      VALIDATE_USAGE,
      { min: 0, max: 1 },
    );
    if (values.help === true)
      return { text: `${VALIDATE_USAGE}\n`, json: { status: 'ok', usage: VALIDATE_USAGE } };
    const dir = positionals[0];
    if (dir === undefined) return usageError(VALIDATE_USAGE);
    const project = await openContractProject(dir);
    if (!project.valid) refuseProject(project, io, values.json === true);
    const outcomes = project.outcomes;
    const counts = new Map<string, number>();
    for (const outcome of outcomes) counts.set(outcome.kind ?? '', (counts.get(outcome.kind ?? '') ?? 0) + 1);
    const summary = [...counts].map(([kind, count]) => `${count} ${kind}`).join(', ');
    return {
      text: `${outcomes.map(outcomeLine).join('')}${outcomes.length} resources valid (${summary})\n`,
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

function itemLine(item: ProjectedItem, width: number): string {
  const { outcome, projection } = item;
  const head = `${(outcome.kind ?? '').padEnd(13)}  ${(outcome.id ?? '').padEnd(width)}`;
  if (projection === null) return `${head}  ${item.status.replace(/_/g, '-')}\n`;
  return `${head}  ${projection.version}  ${projection.compatibility}  ${projection.digest}\n`;
}

export const contractProject: Command = {
  path: ['contract', 'project'],
  usage: PROJECT_USAGE,
  async run(args, io): Promise<CommandResult> {
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
    if (values.help === true)
      return { text: `${PROJECT_USAGE}\n`, json: { status: 'ok', usage: PROJECT_USAGE } };
    const dir = positionals[0];
    if (dir === undefined) return usageError(PROJECT_USAGE);
    const project = await openContractProject(dir);
    let items: ProjectedItem[];
    if (values.resource !== undefined) {
      const wanted = values.resource;
      const outcome = project.outcomes.find(
        (candidate) => candidate.id === wanted && candidate.status !== 'blocked',
      );
      if (outcome === undefined) {
        if (!project.outcomes.every((candidate) => candidate.status !== 'blocked')) {
          refuseProject(project, io, values.json === true);
        }
        throw refuseContract('contract_resource_not_found', { role: 'project' });
      }
      if (outcome.refusal !== null) throw outcome.refusal;
      if (outcome.kind === 'Dashboard')
        throw refuseContract('contract_resource_not_contract_bearing', { role: 'project' });
      if (outcome.version === null)
        throw refuseContract('contract_version_missing', { role: 'projection', field: 'contract' });
      items = [projectedItem(project, outcome)];
    } else {
      if (!project.valid) refuseProject(project, io, values.json === true);
      items = project.outcomes.map((outcome) => projectedItem(project, outcome));
    }
    const projections = items.flatMap((item) => (item.projection === null ? [] : [item.projection]));
    let written: number | null = null;
    if (values.out !== undefined) {
      const tree = projectionTree(projections);
      writeContractOutput(values.out, tree);
      written = tree.length;
    }
    const width = Math.max(0, ...items.map((item) => (item.outcome.id ?? '').length));
    const footer =
      written === null ? '' : `wrote ${written} files (${projections.length} projections and index.json)\n`;
    return {
      text: `${items.map((item) => itemLine(item, width)).join('')}${footer}`,
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
    if (values.help === true)
      return { text: `${SCHEMAS_USAGE}\n`, json: { status: 'ok', usage: SCHEMAS_USAGE } };
    if (values.out === undefined) return usageError(SCHEMAS_USAGE);
    const files = contractJsonSchemas();
    writeContractOutput(values.out, files);
    const names = files.map((file) => file.path.join('/'));
    return {
      text: `${names.map((name) => `wrote ${name}\n`).join('')}`,
      json: { status: 'ok', files: names },
    };
  },
};

function usageError(usage: string): never {
  throw new UsageError('missing argument', usage);
}
