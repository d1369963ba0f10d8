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
  ledgerLocation,
  ledgerServerShown,
  openLedger,
  prepareEmbeddedLedger,
  refuseLedger,
  requireContractProjectFolder,
  resourceIndexBucketOf,
} from '../../contracts/index.js';
import type { Refusal } from '../../core/refusal/index.js';
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

export function entryLine(entry: LedgerEntry): string {
  const approval =
    entry.approval === null
      ? ''
      : `  approved by ${entry.approval.approver} at ${entry.approval.approvedAt}: ${entry.approval.reason}`;
  return `${String(entry.position).padStart(6)}  ${entry.version.padEnd(9)}  ${entry.verdict.padEnd(10)}  ${entry.digest}${approval}\n`;
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

export function planJson(plan: PublicationPlan, place?: PlaceRefusal): JsonObjectOut {
  return {
    format: plan.format,
    head: headJson(plan.head),
    appends: plan.appends,
    unchanged: plan.items.filter((item) => item.status === 'unchanged').length,
    refused: plan.refused,
    items: plan.items.map((item) => planItemJson(item, place)),
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

export function planText(plan: PublicationPlan): string {
  const width = Math.max(0, ...plan.items.map((item) => (item.resource?.id ?? '-').length));
  return `plan against the ${headText(plan.head)}\n${plan.items.map((item) => planItemText(item, width)).join('')}`;
}

/**
 * Tampered evidence found by publish, history or replay: exit 2 with the
 * position, in human mode as a line on stderr above the refusal, with --json
 * as `position` beside `field` (docs/contracts.md#replay-and-tamper-evidence).
 * Any other error is thrown on, for the CLI to report.
 */
export function refusedByTamper(error: unknown): CommandResult {
  if (!refuseLedger.is(error, 'contract_ledger_tampered')) throw error;
  const { position } = error.details;
  const { details: _printed, ...record } = refusalJson(error, LEDGER_DISCLOSURE);
  return {
    text: '',
    errors: `ledger position ${position}: ${error.field ?? 'entry'} does not re-validate\n${formatRefusal(error, LEDGER_DISCLOSURE)}`,
    json: { status: 'refused', ...record, position },
    refused: true,
  };
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
 * Opens an existing ledger for reading (history, replay). An embedded ledger
 * that was never created is refused where it was looked for, with the way to
 * create it: the folder is the user's own project (docs/contracts.md).
 */
export async function openExistingLedger(
  url: string | undefined,
  projectDir: string,
): Promise<LedgerConnection> {
  const location = ledgerLocation(url, projectDir);
  // A mistyped or wrong folder is named as such, not as a ledger that cannot be opened.
  if (location.kind === 'embedded') requireContractProjectFolder(projectDir);
  compileEmbeddedLedgerQuickly(location);
  try {
    return await openLedger(location, { create: false, readOnly: true });
  } catch (error: unknown) {
    if (location.kind === 'embedded' && refuseLedger.is(error, 'contract_ledger_missing')) {
      throw error.at(
        { path: join(projectDir, '.sealkit', 'ledger') },
        `publish first with 'sealkit contract publish ${projectDir}', or pass --ledger URL`,
      );
    }
    throw await placeLedgerFailure(error, location, projectDir);
  }
}

/**
 * A ledger that cannot be opened is placed where it is, as `ledger:` shows
 * it on success: an embedded ledger at its folder, with what to check (the
 * folder is the user's own project); a server as the connection resolves it
 * with the flag or variable that named it, never the password
 * (docs/contracts.md#a-postgresql-server-as-its-users-run-it). A URL that cannot be read names
 * its source in the hint instead, since no server can be shown.
 */
export async function placeLedgerFailure(
  error: unknown,
  location: LedgerLocation,
  projectDir: string,
): Promise<unknown> {
  if (location.kind === 'embedded') {
    const at = { path: join(projectDir, '.sealkit', 'ledger') };
    if (refuseLedger.is(error, 'contract_ledger_busy')) return error.at(at);
    if (!refuseLedger.is(error, 'contract_ledger_unavailable')) return error;
    return error.at(
      at,
      `check that this account can create and write ${join(projectDir, '.sealkit')} and that its disk is not full`,
    );
  }
  if (refuseLedger.is(error, 'contract_ledger_location_invalid')) {
    const source =
      location.from === '--ledger' ? 'the URL given with --ledger' : `the URL in ${location.from}`;
    return error.at({}, `${source}: ${error.hint ?? 'check it'}`);
  }
  if (refuseLedger.is(error, 'contract_ledger_unavailable'))
    return error.at({ path: await ledgerShown(location) });
  return error;
}
