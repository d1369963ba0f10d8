import type { SnapshotView } from '../plan/compare.js';
import type { OutsideLinks, SiblingBundles } from '../plan/links.js';
import { outsideLinkPaths } from '../plan/links.js';
import type { SourceBundle, SourcePipeline } from './sources.js';

/**
 * Paths a destination is asked about at most, per run, for the bundles it
 * will be sent: a site's links out of the run's bundles (to last week's
 * report) are few; past this many, the rest are not checked rather than
 * cost a round trip each.
 */
export const OUTSIDE_LINKS_ASKED = 1000;

/**
 * For each pipeline and each of its destinations that renders pages, what
 * the destination holds of the paths its pages link to outside every bundle
 * of the run (a bundle published earlier, or a typo): the plan names a link
 * whose target the destination does not hold (docs/distributor.md#pages).
 * Undefined for a destination not asked (no such link, no pages, a refused
 * destination, a backend that cannot tell).
 */
export async function askOutsideLinks(
  pipelines: readonly SourcePipeline[],
  signal: AbortSignal | undefined,
): Promise<readonly (readonly (OutsideLinks | undefined)[])[]> {
  return Promise.all(
    pipelines.map(async (pipeline) => {
      const failed = new Set(pipeline.failures.map((failure) => failure.bundle_dir));
      const bundles = pipeline.bundles.filter((bundle) => !failed.has(bundle.dir));
      const siblings: SiblingBundles = new Map(bundles.map((bundle) => [bundle.dir, bundle.manifest]));
      return Promise.all(
        pipeline.destinations.map(async (destination, index) => {
          const backend = destination.backend;
          // Only the pages this destination will be sent are reported: a bundle it already holds as
          // it is would spend the lookups of the ones that change (a site of 300 weeks).
          const sent = bundles.filter((bundle) => !heldAlready(bundle, bundle.views[index]));
          const targets = outsideLinkPaths(
            sent.flatMap((bundle) => bundle.pages),
            siblings,
          ).slice(0, OUTSIDE_LINKS_ASKED);
          if (targets.length === 0 || destination.config.outputs.html === false) return undefined;
          if (destination.refusal !== undefined || backend?.holds === undefined) return undefined;
          try {
            return await backend.holds(targets, signal === undefined ? {} : { signal });
          } catch {
            // A doubt is never a warning: the links stay unchecked, as before.
            return undefined;
          }
        }),
      );
    }),
  );
}

/** The destination holds this very bundle already (same id and digest): it will be skipped, and its links are not reported. */
function heldAlready(bundle: SourceBundle, view: SnapshotView | undefined): boolean {
  return (
    view?.kind === 'managed' &&
    view.state.source.manifest.id === bundle.manifest.id &&
    view.state.source.manifest.digest === bundle.manifest.digest
  );
}
