import { canonicalize } from '../../core/json/index.js';
import type { PhysicalType } from '../authoring/physical-type.js';
import { type ChangeList, member, pairBy } from './changes.js';
import { literalMeaning } from './literal-value.js';
import { typeChange } from './type-change.js';
import type { SemanticView } from './views.js';

type Binding = SemanticView['dimensions'][number]['binding'];

const byName = (item: { readonly name: string }) => item.name;

/** Added and removed members of one semantic collection; returns the kept pairs. */
function members<T extends { readonly name: string }>(
  collection: string,
  baseline: readonly T[],
  candidate: readonly T[],
  changes: ChangeList,
): [T, T][] {
  const { removed, added, kept } = pairBy(baseline, candidate, byName);
  for (const item of removed) changes.add(member(`content.${collection}`, item.name), 'member_removed');
  for (const item of added) changes.add(member(`content.${collection}`, item.name), 'member_added');
  return kept;
}

/** The bound field (dataset id + field) apart from its type, which has rules of its own. */
function sameTarget(a: Binding | null, b: Binding | null): boolean {
  if (a === null || b === null) return a === b;
  return a.resource === b.resource && a.field === b.field;
}

function bindingType(path: string, a: Binding | null, b: Binding | null, changes: ChangeList): void {
  if (a === null || b === null) return;
  const change = typeChange(a.type as PhysicalType, b.type as PhysicalType);
  if (change !== 'same') {
    changes.add(
      `${path}.binding.type`,
      change === 'widened' ? 'binding_type_widened' : 'binding_type_changed',
    );
  }
}

/**
 * Compares two SemanticModel projections. Members are keyed by name; a kept
 * member whose meaning changed is breaking, except that a binding whose
 * physical type was only widened is a widening (like the field it binds).
 */
export function compareSemantic(baseline: SemanticView, candidate: SemanticView, changes: ChangeList): void {
  if (baseline.dataset !== candidate.dataset) changes.add('content.dataset', 'dataset_changed');
  if (baseline.defaults.agg_time_dimension !== candidate.defaults.agg_time_dimension) {
    changes.add('content.defaults.agg_time_dimension', 'default_time_dimension_changed');
  }

  for (const [before, after] of members('entities', baseline.entities, candidate.entities, changes)) {
    if (before.type !== after.type || canonicalize(before.fields) !== canonicalize(after.fields)) {
      changes.add(member('content.entities', before.name), 'entity_changed');
    }
  }

  for (const [before, after] of members('dimensions', baseline.dimensions, candidate.dimensions, changes)) {
    const path = member('content.dimensions', before.name);
    if (
      before.type !== after.type ||
      before.time_granularity !== after.time_granularity ||
      !sameTarget(before.binding, after.binding)
    ) {
      changes.add(path, 'dimension_changed');
    }
    bindingType(path, before.binding, after.binding, changes);
  }

  for (const [before, after] of members('measures', baseline.measures, candidate.measures, changes)) {
    const path = member('content.measures', before.name);
    if (
      before.agg !== after.agg ||
      before.agg_time_dimension !== after.agg_time_dimension ||
      !sameTarget(before.binding, after.binding)
    ) {
      changes.add(path, 'measure_changed');
    }
    bindingType(path, before.binding, after.binding, changes);
    if (before.empty_result !== after.empty_result) {
      // zero → null: readers may now receive null; null → zero: the same input gives another value.
      changes.add(
        `${path}.empty_result`,
        after.empty_result === 'null' ? 'measure_empty_result_null' : 'measure_changed',
      );
    }
  }

  for (const [before, after] of members(
    'relationships',
    baseline.relationships,
    candidate.relationships,
    changes,
  )) {
    const shape = (r: typeof before) => canonicalize([r.fields, r.to, r.cardinality, r.path]);
    if (shape(before) !== shape(after)) {
      changes.add(member('content.relationships', before.name), 'relationship_changed');
    }
  }

  for (const [before, after] of members('filters', baseline.filters, candidate.filters, changes)) {
    const path = `${member('content.filters', before.name)}.conditions`;
    // A condition apart from its binding type: that type follows the field and has its own rules.
    const key = (condition: (typeof before.conditions)[number]) =>
      canonicalize({
        ...condition,
        binding: { resource: condition.binding.resource, field: condition.binding.field },
        // A literal rewritten at a widened decimal scale is the same condition.
        values: condition.values.map(literalMeaning),
      });
    const { removed, added, kept } = pairBy(before.conditions, after.conditions, key);
    if (removed.length > 0 || added.length > 0) changes.add(path, 'filter_changed');
    for (const [a, b] of kept) bindingType(path, a.binding, b.binding, changes);
  }
}
