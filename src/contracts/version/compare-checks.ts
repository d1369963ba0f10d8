import { canonicalize } from '../../core/json/index.js';
import { type ChangeList, member, pairBy } from './changes.js';
import { literalMeaning } from './literal-value.js';
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
  const pairedAdded = new Set<CheckView>();
  for (const check of removed) {
    const path = member('content.checks', label(check));
    // A unique key that lost fields (a subset) is stronger; one that gained fields (a superset) weaker.
    const key = check.type === 'unique' ? check.fields : null;
    const other =
      key === null
        ? undefined
        : added.find(
            (candidateCheck) =>
              candidateCheck.type === 'unique' &&
              !pairedAdded.has(candidateCheck) &&
              (isSubset(candidateCheck.fields, key) || isSubset(key, candidateCheck.fields)),
          );
    if (other === undefined || other.type !== 'unique' || key === null) {
      changes.add(path, 'check_removed');
      continue;
    }
    pairedAdded.add(other);
    changes.add(
      `${path}.fields`,
      isSubset(other.fields, key) ? 'unique_fields_reduced' : 'unique_fields_extended',
    );
    if (check.severity !== other.severity) {
      changes.add(
        `${path}.severity`,
        other.severity === 'warn' ? 'check_severity_relaxed' : 'check_severity_raised',
      );
    }
  }
  for (const check of added) {
    if (!pairedAdded.has(check)) changes.add(member('content.checks', label(check)), 'check_added');
  }
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
        canonicalize(literalMeaning(value)),
      );
      if (accepted.length > 0) changes.add(`${path}.values`, 'accepted_values_added');
      if (dropped.length > 0) changes.add(`${path}.values`, 'accepted_values_removed');
    }
  }
}

/** Every member of `small` is in `large` (field sets are sorted and distinct). */
function isSubset(small: readonly string[], large: readonly string[]): boolean {
  return small.every((field) => large.includes(field));
}
