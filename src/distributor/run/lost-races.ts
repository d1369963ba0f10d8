import { setTimeout as sleep } from 'node:timers/promises';
import type { OutsideLinks } from '../plan/links.js';
import { planRun } from '../plan/plan-run.js';
import type { PlanItem, RunPlan } from '../plan/types.js';
import { inspectDestination } from './destinations.js';
import type { ItemOutcome } from './report.js';
import { planInput, type SourcePipeline } from './sources.js';

/** The least time between two looks at the bundles a run lost. */
const PAUSE_MS = 1000;

/** The refusals of an S3 bundle whose pending marker another run wrote after this run had looked at it. */
const LOST_RACE: ReadonlySet<string> = new Set(['destination_locked', 'destination_changed']);

/** One pass of `retryLostRaces`: the items planned again, applied as the run applies its plan. */
export type ApplyItems = (items: readonly PlanItem[]) => Promise<ItemOutcome[]>;

const keyOf = (item: { pipeline_id: string; destination_id: string; bundle_dir: string }): string =>
  `${item.pipeline_id}\u0000${item.destination_id}\u0000${item.bundle_dir}`;

/**
 * `--wait` for S3 bundles another run took after this run had inspected them
 * (two cron jobs started in the same minute: each inspects before the other
 * has written a marker, and the one that writes its marker second is
 * refused `destination_locked`, or `destination_changed` once the other has
 * committed). While the run's wait lasts, such a bundle is inspected again —
 * inspection waits for the other run to commit and delete its marker, or
 * for its lease to end — planned again from what that run left
 * (`skipped_same` when it published the same version), and applied, up to
 * the deadline; whatever is still refused then stays refused, with the
 * backend's account of why (docs/distributor.md, "Runs at the same time").
 *
 * Only bundles whose verified copy is still whole are taken again: one kept
 * in the run's private temporary area. A local destination that holds the
 * copy in its work area moves those files into its own bundles, so a bundle
 * it also receives keeps its refusal.
 */
export async function retryLostRaces(
  plan: RunPlan,
  outcomes: readonly ItemOutcome[],
  pipelines: readonly SourcePipeline[],
  until: { readonly deadline: number; readonly signal?: AbortSignal | undefined },
  apply: ApplyItems,
  /** What each pipeline's destinations hold of its pages' links out of the run (see askOutsideLinks). */
  outside: readonly (readonly (OutsideLinks | undefined)[])[] = [],
): Promise<{ readonly plan: RunPlan; readonly outcomes: readonly ItemOutcome[] }> {
  let items = plan.items;
  let current = outcomes;
  for (;;) {
    if (Date.now() >= until.deadline || stopped(until.signal)) break;
    const lost = items.flatMap((item, index) => {
      const outcome = current[index];
      return outcome !== undefined && isLostRace(item, outcome, pipelines) ? [index] : [];
    });
    if (lost.length === 0) break;
    const began = Date.now();
    // A pause before each look: the other run needs that long to commit
    // anyway, and a store that keeps refusing is not asked again at once.
    await sleep(Math.min(PAUSE_MS, Math.max(0, until.deadline - Date.now())), undefined, {
      ...(until.signal === undefined ? {} : { signal: until.signal }),
    }).catch(() => undefined);
    if (stopped(until.signal)) break;
    for (const index of lost) {
      const item = items[index];
      if (item !== undefined) await inspectAgain(item, pipelines, until.signal);
    }
    countWait(
      lost.flatMap((index) => items[index] ?? []),
      pipelines,
      Date.now() - began,
    );
    // A signal during the wait: the bundles keep their refusals, and the run stops.
    if (stopped(until.signal)) break;
    const again = new Map(
      planRun(pipelines.map((pipeline, index) => planInput(pipeline, outside[index]))).items.map((item) => [
        keyOf(item),
        item,
      ]),
    );
    const retried = lost.flatMap((index) => {
      const item = items[index];
      const next = item === undefined ? undefined : again.get(keyOf(item));
      return next === undefined ? [] : [{ index, item: next }];
    });
    if (retried.length === 0) break;
    const applied = await apply(retried.map((entry) => entry.item));
    const nextItems = [...items];
    const nextOutcomes = [...current];
    for (const [at, { index, item }] of retried.entries()) {
      const outcome = applied[at];
      if (outcome === undefined) continue;
      nextItems[index] = item;
      nextOutcomes[index] = outcome;
    }
    items = nextItems;
    current = nextOutcomes;
  }
  return { plan: items === plan.items ? plan : { ...plan, items }, outcomes: current };
}

/**
 * The pause and fresh look of one pass, added to each destination's wait
 * for the report (`waited`): a run that lost races waited for the other
 * run as surely as one that found a bundle held, and its log should say so.
 * Once per destination a pass, however many of its bundles were lost.
 */
function countWait(lost: readonly PlanItem[], pipelines: readonly SourcePipeline[], ms: number): void {
  const counted = new Set<object>();
  for (const item of lost) {
    const pipeline = pipelines.find((candidate) => candidate.config.id === item.pipeline_id);
    const destination = pipeline?.destinations.find(
      (candidate) => candidate.config.id === item.destination_id,
    );
    if (destination === undefined || counted.has(destination)) continue;
    counted.add(destination);
    destination.waitedMs = (destination.waitedMs ?? 0) + ms;
  }
}

/** Read afresh each time: a signal may come during any await. */
const stopped = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

function isLostRace(item: PlanItem, outcome: ItemOutcome, pipelines: readonly SourcePipeline[]): boolean {
  if (item.outcome !== 'published' && item.outcome !== 'replaced') return false;
  if (outcome.outcome !== 'refused' || !LOST_RACE.has(outcome.reason_code ?? '')) return false;
  const pipeline = pipelines.find((candidate) => candidate.config.id === item.pipeline_id);
  const destination = pipeline?.destinations.find((candidate) => candidate.config.id === item.destination_id);
  const bundle = pipeline?.bundles.find((candidate) => candidate.dir === item.bundle_dir);
  return destination?.config.kind === 's3' && bundle?.store !== undefined && bundle.store.owner === undefined;
}

/** The bundle's view at the item's destination read afresh, as inspection first read it. */
async function inspectAgain(
  item: PlanItem,
  pipelines: readonly SourcePipeline[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const pipeline = pipelines.find((candidate) => candidate.config.id === item.pipeline_id);
  const at =
    pipeline?.destinations.findIndex((candidate) => candidate.config.id === item.destination_id) ?? -1;
  const destination = pipeline?.destinations[at];
  const bundle = pipeline?.bundles.find((candidate) => candidate.dir === item.bundle_dir);
  if (destination === undefined || bundle === undefined) return;
  const { view, refusal } = await inspectDestination(destination, bundle.dir, signal, true);
  const views = [...bundle.views];
  views[at] = view;
  bundle.views = views;
  if (refusal === undefined) bundle.inspectRefusals.delete(destination.config.id);
  else bundle.inspectRefusals.set(destination.config.id, refusal);
}
