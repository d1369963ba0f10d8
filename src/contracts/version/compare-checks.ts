import { canonicalize } from '../../core/json/index.js';
import { type ChangeList, member, pairBy } from './changes.js';
import type { CheckView } from './views.js';

/** A check's identity: its type and the field (or, for `unique`, the field set) it guards. */
function identity(check: CheckView): string {
  return canonicalize(check.type === 'unique' ? [check.type, check.fields] : [check.type, check.field]);
}

function label(check: CheckView): string {
  return `${check.type} ${check.type === 'unique' ? check.fields.join(',') : check.field}`;
}

/**
 * Compares the check sets of two Model projections. Checks are guarantees
 * readers rely on: one more is compatible, one fewer (or a weaker one) may
 * let values reach readers that the baseline excluded — a widening.
 */
export function compareChecks(
  baseline: readonly CheckView[],
  candidate: readonly CheckView[],
  changes: ChangeList,
): void {
  const { removed, added, kept } = pairBy(baseline, candidate, identity);
  for (const check of removed) changes.add(member('content.checks', label(check)), 'check_removed');
  for (const check of added) changes.add(member('content.checks', label(check)), 'check_added');
  for (const [before, after] of kept) {
    const path = member('content.checks', label(before));
    if (before.severity !== after.severity) {
      changes.add(
        `${path}.severity`,
        after.severity === 'warn' ? 'check_severity_relaxed' : 'check_severity_raised',
      );
    }
    if (before.type === 'accepted_values' && after.type === 'accepted_values') {
      const { removed: dropped, added: accepted } = pairBy(before.values, after.values, (value) =>
        canonicalize(value),
      );
      if (accepted.length > 0) changes.add(`${path}.values`, 'accepted_values_added');
      if (dropped.length > 0) changes.add(`${path}.values`, 'accepted_values_removed');
    }
  }
}
