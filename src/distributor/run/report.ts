import type { Outcome, PlanItem, RunFailure, RunPlan } from '../plan/types.js';

/** One line of the run's report: what happened to one bundle at one destination. */
export interface ItemOutcome {
  readonly pipeline_id: string;
  readonly destination_id: string;
  readonly bundle_dir: string;
  readonly bundle_id: string | null;
  readonly outcome: Outcome;
  readonly reason_code?: string;
  /** Files written (published/replaced), excluding `.distributor.json`. */
  readonly outputs?: number;
}

export type OutcomeCounts = { readonly [O in Outcome]: number };

export interface RunReport {
  /** `ok` when every outcome is published, replaced or skipped; `refused` otherwise (exit 2). */
  readonly status: 'ok' | 'refused';
  readonly dry_run: boolean;
  /** True when a validation, discovery or planning failure stopped every write. */
  readonly aborted: boolean;
  readonly failures: readonly RunFailure[];
  readonly counts: OutcomeCounts;
  readonly outcomes: readonly ItemOutcome[];
  /** The plan the run applied (or, under --dry-run, would apply). */
  readonly plan: RunPlan;
}

export const OUTCOMES: readonly Outcome[] = [
  'published',
  'replaced',
  'skipped_same',
  'skipped_newer',
  'conflict',
  'refused',
];

/** The outcome a plan item predicts, before apply (what --dry-run reports). */
export function predictedOutcome(item: PlanItem): ItemOutcome {
  const head = {
    pipeline_id: item.pipeline_id,
    destination_id: item.destination_id,
    bundle_dir: item.bundle_dir,
    bundle_id: item.bundle_id,
  };
  switch (item.action) {
    case 'publish':
      return { ...head, outcome: 'published', outputs: item.outputs.length };
    case 'replace':
      return { ...head, outcome: 'replaced', outputs: item.outputs.length };
    case 'skip_same':
      return { ...head, outcome: 'skipped_same' };
    case 'skip_newer':
      return { ...head, outcome: 'skipped_newer' };
    case 'conflict':
      return { ...head, outcome: 'conflict', reason_code: item.reason_code };
    case 'refuse':
      return { ...head, outcome: 'refused', reason_code: item.reason_code };
  }
}

export function buildReport(plan: RunPlan, outcomes: readonly ItemOutcome[], dryRun: boolean): RunReport {
  const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as { [O in Outcome]: number };
  for (const item of outcomes) counts[item.outcome] += 1;
  const failed = plan.failures.length > 0 || counts.conflict > 0 || counts.refused > 0;
  return {
    status: failed ? 'refused' : 'ok',
    dry_run: dryRun,
    aborted: plan.aborted,
    failures: plan.failures,
    counts,
    outcomes,
    plan,
  };
}
