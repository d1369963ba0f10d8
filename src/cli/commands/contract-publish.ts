// First: zod must know before any schema is built (see the module).
import './contract-schemas-interpreted.js';
import { join } from 'node:path';
import {
  approvalOutsideRun,
  approvalOutsideRunInLedger,
  type ContractProject,
  checkWideningApproval,
  type IdentifiedCandidate,
  type LedgerEntry,
  type LedgerLocation,
  ledgerLocation,
  openContractProjectCached,
  type PublicationPlan,
  type PublicationPlanItem,
  publishToLedger,
  resourceNotFoundInLedger,
  type WideningApproval,
} from '../../contracts/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import type { Command, CommandResult } from '../command.js';
import { formatRefusal, type JsonObjectOut, progress, refusalJson } from '../output.js';
import { nonEmptyOption, optionalArgument, parseCommandArgs, requireArgument } from '../parse.js';
import { UsageError } from '../usage-error.js';
import {
  type AbsentItem,
  compileEmbeddedLedgerAhead,
  headJson,
  headText,
  LEDGER_DISCLOSURE,
  ledgerInUse,
  ledgerJson,
  ledgerLine,
  planJson,
  planText,
  projectFolderOf,
  refusedAtLedger,
  refusedBeforeLedger,
  withValidateHint,
} from './contract-ledger-output.js';

const USAGE = `Usage: sealkit contract publish DIR [--resource ID ...] [--ledger URL]
         [--approve-widening ID@VERSION --approver NAME --reason TEXT [--approved-at TIME]]
         [--dry-run] [-q] [--json]

Projects the contract project in DIR, classifies every versioned Source, Model
and SemanticModel (or each --resource) against its latest publication in the
ledger, prints the plan, and appends the new publications — all or nothing, in
one transaction. Re-publishing identical bytes changes nothing. Refused: a
version reused with other bytes, a version that does not increase, a breaking
change without a new major version, a widening without an approval of exactly
ID@VERSION, an approval where nothing widens (an unchanged resource
included), tampered evidence. Without --resource, a resource the ledger holds
that DIR no longer publishes (its file deleted, its id renamed, its contract
version removed) is listed as absent: it stays published, and the exit code
does not change.

The ledger is append-only PostgreSQL: --ledger URL, else SEALKIT_LEDGER_URL,
else DATABASE_URL names a server (postgres:// or postgresql://; libpq's PG*
variables and ~/.pgpass fill what the URL leaves out, so no password is
needed on the command line; the URL is never printed). Without one, PGlite
(embedded) in DIR/.sealkit/ledger, created by the first publication: add
.sealkit/ to the project's .gitignore (it is a database, 15 MB or more).
DuckDB's parses of the model SQL are kept in DIR/.sealkit/cache/, so a later
run with unchanged SQL does not load DuckDB; delete the folder to drop them.

Flags:
  --resource ID               publish only this resource (repeatable)
  --ledger URL                a postgres:// or postgresql:// URL (default:
                              SEALKIT_LEDGER_URL, DATABASE_URL, else embedded)
  --project DIR               the same as DIR (the older spelling, still accepted)
  --approve-widening ID@VER   approve the widening publication of ID at VER
                              (repeatable, one per resource; the same approver,
                              reason and time apply to each)
  --approver NAME             who approves (required with --approve-widening)
  --reason TEXT               why (required with --approve-widening)
  --approved-at TIME          when, RFC 3339 UTC to the second (default: now)
  --dry-run                   print the plan only; nothing is created or written
  -q, --quiet                 print no plan and no progress; refusals still go to stderr
  --json                      print one JSON object on stdout
  -h, --help                  show this help

Exit codes: 0 every resource published or unchanged, 1 usage error, 2 refused
(nothing was written; with the per-resource plan), 70 internal error.

Examples:
  sealkit contract publish retail --dry-run
  sealkit contract publish retail
  sealkit contract publish retail --resource retail.source.orders --approve-widening retail.source.orders@1.4.0 --approver 'Ada Steward' --reason 'Wholesale orders' --approved-at 2026-03-01T09:30:00Z`;

const OPTIONS = {
  resource: { type: 'string', multiple: true },
  ledger: { type: 'string' },
  project: { type: 'string' },
  'approve-widening': { type: 'string', multiple: true },
  approver: { type: 'string' },
  reason: { type: 'string' },
  'approved-at': { type: 'string' },
  'dry-run': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * The approvals: one per --approve-widening (one per resource), all by the
 * same --approver, for the same --reason, at the same time.
 */
function approvalsOf(values: {
  readonly 'approve-widening'?: readonly string[];
  readonly approver?: string;
  readonly reason?: string;
  readonly 'approved-at'?: string;
}): WideningApproval[] {
  const targets = values['approve-widening'] ?? [];
  if (targets.length === 0) {
    if (values.approver !== undefined || values.reason !== undefined || values['approved-at'] !== undefined) {
      throw new UsageError('--approver, --reason and --approved-at need --approve-widening', USAGE);
    }
    return [];
  }
  if (values.approver === undefined || values.reason === undefined) {
    throw new UsageError('--approve-widening needs --approver and --reason', USAGE);
  }
  const { approver, reason } = values;
  const approvedAt = values['approved-at'] ?? `${new Date().toISOString().slice(0, 19)}Z`;
  const approvals = targets.map((approves) =>
    checkWideningApproval({ approves, approver, reason, approvedAt }),
  );
  const resources = approvals.map((approval) =>
    approval.approves.slice(0, approval.approves.lastIndexOf('@')),
  );
  if (new Set(resources).size !== resources.length) {
    throw new UsageError('--approve-widening names one resource twice (one approval per resource)', USAGE);
  }
  return approvals;
}

/**
 * The versioned contract-bearing resources to publish: all of them, or
 * exactly the requested ones. A requested id no file declares is told
 * against the ledger at `location`, which may still hold it.
 */
async function candidatesOf(
  project: ContractProject,
  requested: readonly string[] | undefined,
  location: LedgerLocation | undefined,
): Promise<IdentifiedCandidate[]> {
  project.requireValid();
  const outcomes = project.outcomes;
  const ids =
    requested === undefined
      ? outcomes.flatMap((outcome) =>
          outcome.kind !== 'Dashboard' && outcome.version !== null && outcome.id !== null ? [outcome.id] : [],
        )
      : [...new Set(requested)];
  const candidates: IdentifiedCandidate[] = [];
  for (const id of ids) {
    if (!outcomes.some((candidate) => candidate.id === id)) {
      throw location === undefined
        ? project.resourceNotFound(id)
        : await resourceNotFoundInLedger(project, id, location);
    }
    // A dashboard or an unversioned resource is refused in its file, as `project --resource` does.
    project.select(id);
    const { bytes, digest } = project.project(id);
    candidates.push({ id, bytes, digest });
  }
  return candidates;
}

/** The ledger's location, or undefined when it would be refused (that is refused later, where it always was). */
function ledgerLocationOrNone(url: string | undefined, dir: string): LedgerLocation | undefined {
  try {
    return ledgerLocation(url, dir);
  } catch {
    return undefined;
  }
}

/**
 * The refusal of a plan item as the CLI prints it on stderr: with the
 * resource's file as the user named it (DIR/<path>) and, for a widening
 * without approval, the flags that approve it.
 */
function itemRefusal(item: PublicationPlanItem, project: ContractProject): string {
  const placed = placedRefusal(item, project);
  return placed === undefined ? '' : formatRefusal(placed, LEDGER_DISCLOSURE);
}

/** The item's refusal in the resource's file, with the way out when there is one. */
function placedRefusal(item: PublicationPlanItem, project: ContractProject): Refusal | undefined {
  const refusal = item.refusal;
  if (refusal === null) return undefined;
  const id = item.resource?.id;
  const hint =
    refusal.code === 'contract_ledger_approval_required' && id !== undefined && item.version !== null
      ? `approve it with --approve-widening ${id}@${item.version} --approver NAME --reason TEXT`
      : undefined;
  if (id === undefined) return refusal;
  return project.placeInFile(id, refusal, pointerOfRefusal(item, project, id), hint);
}

/**
 * Where in its file an item's refusal is fixed: a refusal about the version
 * at the version as written; one about a widening's approval at the first
 * widening change, which is what the approval vouches for.
 */
function pointerOfRefusal(
  item: PublicationPlanItem,
  project: ContractProject,
  id: string,
): string | undefined {
  const refusal = item.refusal;
  if (refusal?.field === 'version') return 'contract.version';
  const approvesWidening =
    refusal?.code === 'contract_ledger_approval_required' ||
    refusal?.code === 'contract_ledger_approval_mismatch';
  const widening = item.classification?.changes.find((change) => change.verdict === 'widening');
  return approvesWidening && widening !== undefined ? project.authoredPointer(id, widening.path) : undefined;
}

/** Every refused item of the plan, for stderr: `>/dev/null` hides the plan, never a refusal. */
function planErrors(plan: PublicationPlan, project: ContractProject): string {
  return plan.items.map((item) => itemRefusal(item, project)).join('');
}

/**
 * The resources the ledger holds that this run of the whole project does
 * not publish, each with why: the project has no file with its id, its file
 * declares no contract version, or the id is a dashboard's now. They stay
 * published; the plan lists them so that a withdrawn or renamed contract
 * never passes unseen (docs/contracts.md#a-resource-that-leaves-the-project).
 */
function absentItems(entries: readonly LedgerEntry[], project: ContractProject): AbsentItem[] {
  return entries.map((entry) => {
    const outcome = project.outcomes.find((candidate) => candidate.id === entry.resource.id);
    if (outcome === undefined) return { entry, reason: 'not_in_project' };
    return {
      entry,
      reason: outcome.kind === 'Dashboard' ? 'not_contract_bearing' : 'unversioned',
      file: outcome.displayPath,
    };
  });
}

/**
 * The first refused item's refusal, placed in its file, for the top level
 * of `--json`: every refusal carries `reason_code` and `message` there
 * (docs/cli.md#output), and, as for every multi-error refusal, they are the
 * first error's; each refused item keeps its own in `plan.items[]`.
 */
function firstRefusalJson(plan: PublicationPlan, project: ContractProject): JsonObjectOut {
  const first = plan.items.find((item) => item.refusal !== null);
  const placed = first === undefined ? undefined : placedRefusal(first, project);
  if (placed === undefined) return {};
  const { details: _details, ...record } = refusalJson(placed, LEDGER_DISCLOSURE);
  return { ...record };
}

export const contractPublish: Command = {
  path: ['contract', 'publish'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 1 });
    const dir = requireArgument(
      projectFolderOf(optionalArgument(positionals[0], 'DIR', USAGE), values.project, USAGE, 'publish'),
      'DIR',
      USAGE,
    );
    nonEmptyOption(values.resource, '--resource', USAGE);
    nonEmptyOption(values.ledger, '--ledger', USAGE);
    const approvals = approvalsOf(values);
    const dryRun = values['dry-run'] === true;
    compileEmbeddedLedgerAhead(values.ledger, dir);
    const { project, keepParses } = await openContractProjectCached(dir);
    const quiet = values.quiet === true;
    let candidates: IdentifiedCandidate[];
    try {
      const location = ledgerLocationOrNone(values.ledger, dir);
      candidates = await candidatesOf(project, values.resource, location);
      // An approval for a resource this run leaves out is told where that
      // resource is: its file, or the ledger that still holds it.
      const published = candidates.map((candidate) => candidate.id);
      const outside =
        location === undefined
          ? approvalOutsideRun(project, approvals, published, values.resource)
          : await approvalOutsideRunInLedger(project, approvals, published, values.resource, location);
      if (outside !== undefined) throw outside;
    } catch (error: unknown) {
      return refusedBeforeLedger(withValidateHint(error, dir), values.ledger, dir, quiet);
    }
    const location = ledgerLocation(values.ledger, dir);
    const ledger = await ledgerInUse(location);
    let run: Awaited<ReturnType<typeof publishToLedger>>;
    try {
      run = await publishToLedger(location, candidates, {
        approval: approvals,
        dryRun,
        // A run of the whole project also says which published resources it no longer has.
        absent: values.resource === undefined,
        creating: () => {
          if (!quiet) {
            progress(
              io,
              `creating the embedded ledger in ${join(dir, '.sealkit', 'ledger')} (its first start takes a second or two)`,
            );
          }
        },
      });
    } catch (error: unknown) {
      return refusedAtLedger(error, ledger, quiet);
    }
    const { plan, applied } = run;
    const absent = absentItems(run.absent, project);
    const refused = plan.refused > 0;
    // A dry run writes nothing, the cache included.
    if (!refused && !dryRun) keepParses(location.kind === 'embedded');
    const notHere = absent.length === 0 ? '' : `, ${absent.length} absent`;
    const footer = refused
      ? `refused: ${plan.refused} of ${plan.items.length} resources${notHere}; nothing was written\n`
      : applied === null
        ? `dry run: ${plan.appends} to append, ${plan.items.length - plan.appends} unchanged${notHere}; nothing was written\n`
        : `appended ${applied.appended.length}, unchanged ${plan.items.length - applied.appended.length}${absent.length === 0 ? '' : `, absent ${absent.length}`}; ${headText(applied.head)}\n`;
    return {
      text: quiet ? '' : `${ledgerLine(ledger)}${planText(plan, absent)}${footer}`,
      ...(refused ? { errors: planErrors(plan, project) } : {}),
      json: {
        status: refused ? 'refused' : 'ok',
        ...(refused ? firstRefusalJson(plan, project) : {}),
        dry_run: dryRun,
        ...ledgerJson(ledger),
        plan: planJson(plan, (item) => placedRefusal(item, project), absent),
        appended: applied?.appended.length ?? 0,
        head: headJson(applied?.head ?? plan.head),
      },
      refused,
    };
  },
};
