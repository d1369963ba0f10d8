import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type {
  ContractChange,
  ContractClassification,
  LedgerConnection,
  LedgerEntry,
  LedgerHead,
  LedgerLocation,
  PublicationPlan,
  PublicationPlanItem,
} from '../../contracts/index.js';
import {
  contractProjectAbove,
  contractProjectsInFolder,
  ledgerLocation,
  ledgerServerShown,
  openLedger,
  prepareEmbeddedLedger,
  refuseContract,
  refuseLedger,
  requireContractProjectFolder,
  resourceIndexBucketOf,
} from '../../contracts/index.js';
import { Refusal } from '../../core/refusal/index.js';
import type { CommandResult } from '../command.js';
import { formatRefusal, type JsonObjectOut, refusalJson } from '../output.js';
import { nonEmptyOption, textOption } from '../parse.js';
import { UsageError } from '../usage-error.js';

/** Shared printing of the contract ledger commands: entries, plans and classifications, human and JSON. */

// The ledger commands read the operator's own project and ledger: located (docs/refusals.md#two-policies).
export const LEDGER_DISCLOSURE = 'located';

/** The help line of `--project DIR`, the same for publish, history and replay. */
export const PROJECT_FLAG_HELP = '--project DIR   the same as DIR (the older spelling, still accepted)';

/**
 * The contract project folder of `publish`, `history` and `replay`: DIR,
 * or `--project DIR`, the older spelling of the same, accepted by all three
 * (docs/contracts.md#commands-classification-ledger-graph); both at once is
 * a usage error. Undefined when neither is given.
 */
export function projectFolderOf(
  dir: string | undefined,
  project: string | undefined,
  usage: string,
  command: 'publish' | 'history' | 'replay',
): string | undefined {
  const flag = textOption(nonEmptyOption(project, '--project', usage), '--project', usage);
  if (flag !== undefined && dir !== undefined) {
    throw new UsageError('DIR given twice (as DIR and as --project)', usage, {
      hint: `sealkit contract ${command} DIR`,
    });
  }
  return dir ?? flag;
}

/**
 * For publish and affected, which need the whole project and print only its
 * errors, never the per-file outcomes: an invalid project says where the
 * per-file report is. Anything else is returned as it is.
 */
export function withValidateHint(error: unknown, dir: string): unknown {
  if (!refuseContract.is(error, 'contract_project_invalid') || error.hint !== undefined) return error;
  return error.at({}, `run 'sealkit contract validate ${dir}' for the report of every file`);
}

export const LEDGER_EXIT_CODES =
  'Exit codes: 0 success, 1 usage error, 2 refused (with a reason code), 70 internal error.';

export function changeJson(change: ContractChange): JsonObjectOut {
  return { path: change.path, rule: change.rule, verdict: change.verdict };
}

export function changeLines(changes: readonly ContractChange[], indent: string): string {
  const verdicts = Math.max(0, ...changes.map((change) => change.verdict.length));
  const rules = Math.max(0, ...changes.map((change) => change.rule.length));
  return changes
    .map(
      (change) =>
        `${indent}${change.verdict.padEnd(verdicts)}  ${change.rule.padEnd(rules)}  ${change.path}\n`,
    )
    .join('');
}

export function classificationJson(classification: ContractClassification): JsonObjectOut {
  return {
    resource: { kind: classification.resource.kind, id: classification.resource.id },
    baseline: { ...classification.baseline },
    candidate: { ...classification.candidate },
    verdict: classification.verdict,
    changes: classification.changes.map(changeJson),
  };
}

export function headJson(head: LedgerHead | null): JsonObjectOut | null {
  return head === null ? null : { position: head.position, entry_hash: head.entryHash };
}

export function headText(head: LedgerHead | null): string {
  return head === null ? 'empty ledger' : `ledger head ${head.position} ${head.entryHash}`;
}

export function entryJson(entry: LedgerEntry): JsonObjectOut {
  return {
    position: entry.position,
    previous_hash: entry.previousHash,
    entry_hash: entry.entryHash,
    profile: entry.profile,
    resource: { kind: entry.resource.kind, id: entry.resource.id },
    version: entry.version,
    compatibility: entry.compatibility,
    digest: entry.digest,
    baseline: entry.baseline,
    verdict: entry.verdict,
    security: entry.security,
    changes: entry.changes.map(changeJson),
    checks: [...entry.checks],
    affected: { kind: entry.affected.kind, id: entry.affected.id },
    approval:
      entry.approval === null
        ? null
        : {
            approves: entry.approval.approves,
            approver: entry.approval.approver,
            approved_at: entry.approval.approvedAt,
            reason: entry.approval.reason,
          },
    resource_index: entry.resourceIndex,
    index_bucket: resourceIndexBucketOf(entry.resource.id),
    bucket_digest: entry.bucketDigest,
  };
}

/** The column names above the entries of `history`. */
export const ENTRY_HEADER = `${'position'.padStart(8)}  ${'version'.padEnd(9)}  ${'verdict'.padEnd(10)}  digest\n`;

/** One entry of `history`: its line, then every change it recorded, as the plan shows them. */
export function entryLines(entry: LedgerEntry): string {
  const approval =
    entry.approval === null
      ? ''
      : `  approved by ${entry.approval.approver} at ${entry.approval.approvedAt}: ${entry.approval.reason}`;
  return `${String(entry.position).padStart(8)}  ${entry.version.padEnd(9)}  ${entry.verdict.padEnd(10)}  ${entry.digest}${approval}\n${changeLines(entry.changes, ' '.repeat(10))}`;
}

/**
 * An item's refusal placed in the operator's file (see `ContractProject.placeInFile`),
 * for the commands that have the project at hand.
 */
export type PlaceRefusal = (item: PublicationPlanItem) => Refusal | undefined;

export function planItemJson(item: PublicationPlanItem, place?: PlaceRefusal): JsonObjectOut {
  const placed = place?.(item);
  const location = placed?.location;
  return {
    status: item.status,
    resource: item.resource === null ? null : { kind: item.resource.kind, id: item.resource.id },
    version: item.version,
    digest: item.digest,
    baseline: item.baseline,
    classification: item.classification === null ? null : classificationJson(item.classification),
    entry: item.entry === null ? null : entryJson(item.entry),
    ...(item.refusal === null
      ? {}
      : {
          reason_code: item.refusal.code,
          message: item.refusal.message,
          ...(item.refusal.field === undefined ? {} : { field: item.refusal.field }),
          ...(location === undefined ? {} : { location: { ...location } }),
          ...(placed?.hint === undefined ? {} : { hint: placed.hint }),
        }),
  };
}

export function planItemText(item: PublicationPlanItem, width: number): string {
  const head = `${item.status.padEnd(9)}  ${(item.resource?.kind ?? '-').padEnd(13)}  ${(item.resource?.id ?? '-').padEnd(width)}`;
  const from = item.classification === null ? '' : `${item.classification.baseline.version} → `;
  const version = `${from}${item.version ?? '-'}`;
  if (item.refusal !== null) {
    const changes = item.classification === null ? '' : changeLines(item.classification.changes, '    ');
    return `${head}  ${version}  (${item.refusal.code}): ${item.refusal.message}\n${changes}`;
  }
  const entry = item.entry;
  if (entry === null) return `${head}  ${version}\n`;
  if (item.status === 'unchanged') {
    return `${head}  ${version}  already published at position ${entry.position}\n`;
  }
  const approval =
    entry.approval === null
      ? ''
      : `    approved by ${entry.approval.approver} at ${entry.approval.approvedAt}\n`;
  return `${head}  ${version}  ${entry.verdict}  position ${entry.position}  ${entry.digest}\n${changeLines(entry.changes, '    ')}${approval}`;
}

/**
 * Why a resource the ledger holds is not published by a run of the whole
 * project: its file is gone (deleted, or its id renamed), it lost its
 * `contract:` version, or its id is now a dashboard's.
 */
export type AbsentReason = 'not_in_project' | 'unversioned' | 'not_contract_bearing';

/** A resource the ledger holds that the run does not publish: its latest entry stays as it is. */
export interface AbsentItem {
  readonly entry: LedgerEntry;
  readonly reason: AbsentReason;
  /** The file that now holds the id (unversioned or a dashboard), as the user names it. */
  readonly file?: string;
}

const ABSENT_TEXT: Readonly<Record<AbsentReason, string>> = {
  not_in_project: 'no file of the project has this id (deleted or renamed)',
  unversioned: 'its file declares no contract version',
  not_contract_bearing: 'its id is now a dashboard, which is not published',
};

function absentText(item: AbsentItem, width: number): string {
  const { entry } = item;
  const file = item.file === undefined ? '' : ` (${item.file})`;
  return `${'absent'.padEnd(9)}  ${entry.resource.kind.padEnd(13)}  ${entry.resource.id.padEnd(width)}  ${entry.version}  published at position ${entry.position}; ${ABSENT_TEXT[item.reason]}${file}: not published by this run, the ledger keeps it\n`;
}

function absentJson(item: AbsentItem): JsonObjectOut {
  const { entry } = item;
  return {
    status: 'absent',
    resource: { kind: entry.resource.kind, id: entry.resource.id },
    version: entry.version,
    digest: entry.digest,
    baseline: null,
    classification: null,
    entry: entryJson(entry),
    reason: item.reason,
    ...(item.file === undefined ? {} : { file: item.file }),
  };
}

export function planJson(
  plan: PublicationPlan,
  place?: PlaceRefusal,
  absent: readonly AbsentItem[] = [],
): JsonObjectOut {
  return {
    format: plan.format,
    head: headJson(plan.head),
    appends: plan.appends,
    unchanged: plan.items.filter((item) => item.status === 'unchanged').length,
    refused: plan.refused,
    absent: absent.length,
    items: [...plan.items.map((item) => planItemJson(item, place)), ...absent.map(absentJson)],
  };
}

/**
 * The ledger a command uses, as it may be printed: the embedded ledger's
 * folder, or the server as the connection resolves it (never the password
 * nor the URL's parameters), with the flag or variable that named it — so a
 * `DATABASE_URL` left set in a shell never receives publications unseen.
 */
export async function ledgerShown(location: LedgerLocation): Promise<string> {
  if (location.kind === 'embedded') return `embedded, ${join(location.projectDir, '.sealkit', 'ledger')}`;
  const server = await ledgerServerShown(location.url);
  return `${server === undefined ? 'a PostgreSQL server' : `postgres://${server}`} (from ${location.from})`;
}

export function planText(plan: PublicationPlan, absent: readonly AbsentItem[] = []): string {
  const width = Math.max(
    0,
    ...plan.items.map((item) => (item.resource?.id ?? '-').length),
    ...absent.map((item) => item.entry.resource.id.length),
  );
  return `plan against the ${headText(plan.head)}\n${plan.items.map((item) => planItemText(item, width)).join('')}${absent.map((item) => absentText(item, width)).join('')}`;
}

/**
 * Before this process compiles PGlite's WebAssembly (9 MB): compile it with
 * V8's baseline compiler only. A CLI run executes little of it, and the
 * optimizing tier it would otherwise start costs about 70 MB of memory and
 * half a second of CPU per run (docs/performance.md#a-new-embedded-ledger).
 * The CLI owns its process, so the CLI sets this flag, never the library;
 * it only affects modules compiled after it (DuckDB is native code).
 */
export function compileEmbeddedLedgerQuickly(location: LedgerLocation): void {
  if (location.kind !== 'embedded') return;
  setFlagsFromString('--liftoff-only');
  prepareEmbeddedLedger();
}

/**
 * For a command that reads the project before it opens the ledger: when the
 * ledger is embedded, start compiling PGlite now, in the background, so the
 * project's reading and validation pay for it instead of the ledger's start
 * (docs/performance.md#a-new-embedded-ledger). A location that would be
 * refused is left to be refused where it always was, after the project.
 */
export function compileEmbeddedLedgerAhead(url: string | undefined, projectDir: string): void {
  let location: LedgerLocation;
  try {
    location = ledgerLocation(url, projectDir);
  } catch {
    return;
  }
  compileEmbeddedLedgerQuickly(location);
}

/**
 * The ledger a command uses, as its output names it: the `ledger:` line
 * (first on stdout) and `ledger`/`ledger_at` in `--json`, and where its
 * refusals are placed (`-->`). `unusedDir` is a DIR given to history or
 * replay whose embedded ledger is not the one read (a server was named).
 */
export interface LedgerInUse {
  readonly location: LedgerLocation;
  readonly shown: string;
  /** The `-->` of a refusal about this ledger; undefined for a URL that cannot be read. */
  readonly place: string | undefined;
  readonly unusedDir: string | undefined;
}

export async function ledgerInUse(location: LedgerLocation, unusedDir?: string): Promise<LedgerInUse> {
  const shown = await ledgerShown(location);
  const place =
    location.kind === 'embedded'
      ? join(location.projectDir, '.sealkit', 'ledger')
      : (await ledgerServerShown(location.url)) === undefined
        ? undefined
        : shown;
  return { location, shown, place, unusedDir };
}

/** `ledger: …`, with a DIR that is not used said to be so. */
export function ledgerLine(ledger: LedgerInUse): string {
  const unused =
    ledger.unusedDir === undefined ? '' : `; the embedded ledger of ${ledger.unusedDir} is not read`;
  return `ledger: ${ledger.shown}${unused}\n`;
}

export function ledgerJson(ledger: LedgerInUse): JsonObjectOut {
  return {
    ledger: ledger.location.kind,
    ledger_at: ledger.shown,
    ...(ledger.unusedDir === undefined ? {} : { dir_not_used: ledger.unusedDir }),
  };
}

/**
 * A refusal about the ledger itself (it cannot be opened, does not exist,
 * is tampered, unprotected, or failed a statement), as publish, history and
 * replay report it: the `ledger:` line on stdout as on success, the refusal
 * placed at the ledger on stderr — a tampered entry with its position on a
 * line above it — and with `--json` one object with `ledger_at` (and
 * `position`). Any other error is thrown on, for the CLI to report.
 */
export function refusedAtLedger(
  error: unknown,
  ledger: LedgerInUse,
  quiet = false,
  rerun?: Rerun,
): CommandResult {
  if (!refuseLedger.is(error)) throw error;
  const placed = placeLedgerRefusal(error, ledger, rerun);
  const position = refuseLedger.is(placed, 'contract_ledger_tampered') ? placed.details.position : undefined;
  const { details: _printed, ...record } = refusalJson(placed, LEDGER_DISCLOSURE);
  return {
    text: quiet ? '' : ledgerLine(ledger),
    errors: `${position === undefined ? '' : `ledger position ${position}: ${placed.field ?? 'entry'} does not re-validate\n`}${formatRefusal(placed, LEDGER_DISCLOSURE)}`,
    json: {
      status: 'refused',
      // The position stays beside the field, where --json has always printed it.
      ...Object.fromEntries(
        Object.entries(record).flatMap(([key, value]) =>
          key === 'field' && position !== undefined
            ? [
                [key, value],
                ['position', position],
              ]
            : [[key, value]],
        ),
      ),
      ...ledgerJson(ledger),
    },
    refused: true,
  };
}

/**
 * A refusal of the project before publish opens the ledger (the project is
 * invalid, a --resource is not declared), as publish reports it: the
 * `ledger:` line first as on success and on every other refusal, so a
 * `DATABASE_URL` left set is seen before the fix is rerun; `ledger` and
 * `ledger_at` in `--json`. A ledger location that would itself be refused
 * leaves the project's refusal as it is (the location is refused after a
 * valid project, where it always was). Anything else is thrown on.
 */
export async function refusedBeforeLedger(
  error: unknown,
  url: string | undefined,
  projectDir: string,
  quiet: boolean,
): Promise<CommandResult> {
  if (!(error instanceof Refusal) || error.category === 'internal') throw error;
  let location: LedgerLocation;
  try {
    location = ledgerLocation(url, projectDir);
  } catch {
    throw error;
  }
  const ledger = await ledgerInUse(location);
  return {
    text: quiet ? '' : ledgerLine(ledger),
    errors: formatRefusal(error, LEDGER_DISCLOSURE),
    json: { status: 'refused', ...refusalJson(error, LEDGER_DISCLOSURE), ...ledgerJson(ledger) },
    refused: true,
  };
}

/**
 * A ledger refusal placed where the ledger is, as `ledger:` shows it: an
 * embedded ledger at its folder in the user's project, a server as the
 * connection resolves it with the flag or variable that named it, never the
 * password (docs/contracts.md#a-postgresql-server-as-its-users-run-it). A
 * URL that cannot be read names its source in the hint instead, since no
 * server can be shown. A ledger that does not exist says how to make one.
 */
function placeLedgerRefusal(error: Refusal, ledger: LedgerInUse, rerun: Rerun | undefined): Refusal {
  const { location } = ledger;
  if (location.kind === 'postgres' && refuseLedger.is(error, 'contract_ledger_location_invalid')) {
    const source =
      location.from === '--ledger' ? 'the URL given with --ledger' : `the URL in ${location.from}`;
    return error.at({}, `${source}: ${error.hint ?? 'check it'}`);
  }
  if (error.location !== undefined || ledger.place === undefined) return error;
  const hint =
    refuseLedger.is(error, 'contract_ledger_missing') && error.hint === undefined
      ? missingLedgerHint(location, rerun)
      : undefined;
  return error.at({ path: ledger.place }, hint);
}

/**
 * The command line that reruns a reader (history, replay) on another
 * project folder, for the hint of a folder that holds projects.
 */
export type Rerun = (dir: string) => string;

/** At most this many projects are named in the hint of a folder that holds projects. */
const PROJECTS_NAMED = 5;

/**
 * How a ledger that does not exist yet comes to exist: the first publication
 * makes it. A folder that is no project but holds projects (one of them with
 * a ledger of its own) says so and names them, with the command on the first
 * one that has a ledger (docs/contracts.md#embedded-ledger).
 */
function missingLedgerHint(location: LedgerLocation, rerun: Rerun | undefined): string {
  if (location.kind === 'embedded') {
    const projects = contractProjectsInFolder(location.projectDir);
    if (projects !== undefined) {
      const named = projects
        .slice(0, PROJECTS_NAMED)
        .map((project) =>
          project.ledger === undefined
            ? `${project.path} (no ledger yet)`
            : `${project.path} (its ledger: ${project.ledger})`,
        );
      const more = projects.length > PROJECTS_NAMED ? ` and ${projects.length - PROJECTS_NAMED} more` : '';
      // Projects with a ledger come first: the first one is the one to read.
      const first = projects[0]?.path ?? 'DIR';
      const next = rerun === undefined ? 'Name one of them as DIR' : `Run: ${rerun(first)}`;
      return `'${location.projectDir}' is not a contract project; it holds projects: ${named.join(', ')}${more}. ${next}`;
    }
    // Inside a published project (run in its sources/ folder, say): its
    // ledger is above, and publishing here would start a second one.
    const above = contractProjectAbove(location.projectDir);
    if (above !== undefined)
      return `'${location.projectDir}' is inside the contract project '${above}', whose ledger is ${join(above, '.sealkit', 'ledger')}: ${rerun === undefined ? `name '${above}' as DIR` : `run: ${rerun(above)}`} (publishing '${location.projectDir}' would start a second ledger)`;
    return `publish first with 'sealkit contract publish ${location.projectDir}', or pass --ledger URL`;
  }
  const same = location.from === '--ledger' ? 'the same --ledger URL' : `${location.from} as it is set now`;
  return `nothing was published to this database yet: the first 'sealkit contract publish DIR' with ${same} creates the ledger, run as a role that may create schema sealkit_ledger (the database owner, say)`;
}

/**
 * The ledger of history and replay: `--ledger`, the variables, else the
 * embedded ledger of DIR (default: the current folder). A DIR that was
 * given must be a contract project folder even when a server is the
 * ledger, so a mistyped DIR is never passed over in silence; when a server
 * is the ledger, the output says that DIR's embedded ledger is not read.
 */
export async function readingLedger(
  url: string | undefined,
  given: string | undefined,
): Promise<LedgerInUse> {
  const dir = given ?? '.';
  const location = ledgerLocation(url, dir);
  if (location.kind === 'embedded' || given !== undefined) {
    try {
      requireContractProjectFolder(dir);
    } catch (error: unknown) {
      if (location.kind === 'postgres' && refuseContract.is(error, 'contract_project_missing')) {
        // The folder meant, when one is near, still helps whoever did mean a project.
        const near = error.hint === undefined ? '' : `; ${error.hint}`;
        throw error.at(error.location ?? { path: dir }, `${notNeededHint(location)}${near}`);
      }
      throw error;
    }
  }
  return ledgerInUse(location, location.kind === 'postgres' ? given : undefined);
}

function notNeededHint(location: Extract<LedgerLocation, { kind: 'postgres' }>): string {
  return `the ledger is the server named by ${location.from}, which needs no DIR: leave DIR out, or name an existing contract project`;
}

/**
 * Opens the ledger of history or replay for reading. An embedded ledger
 * that was never created is refused where it was looked for, with the way
 * to create it: the folder is the user's own project (docs/contracts.md).
 */
export async function openReadingLedger(ledger: LedgerInUse): Promise<LedgerConnection> {
  compileEmbeddedLedgerQuickly(ledger.location);
  return openLedger(ledger.location, { create: false, readOnly: true });
}
