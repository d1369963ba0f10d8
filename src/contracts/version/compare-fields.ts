import { canonicalize } from '../../core/json/index.js';
import type { PhysicalType } from '../authoring/physical-type.js';
import { type ChangeList, member, pairBy } from './changes.js';
import { typeChange } from './type-change.js';
import type { FieldView } from './views.js';

const CLASSIFICATION_RANK: Readonly<Record<FieldView['classification'], number>> = {
  public: 0,
  internal: 1,
  confidential: 2,
  restricted: 3,
};

/** Compares the typed field sets of two Source or Model projections. */
export function compareFields(
  baseline: readonly FieldView[],
  candidate: readonly FieldView[],
  changes: ChangeList,
): void {
  const { removed, added, kept } = pairBy(baseline, candidate, (field) => field.name);
  for (const field of removed) changes.add(member('content.fields', field.name), 'field_removed');
  for (const field of added) changes.add(member('content.fields', field.name), 'field_added');
  for (const [before, after] of kept) {
    const path = member('content.fields', before.name);
    const type = typeChange(before.type as PhysicalType, after.type as PhysicalType);
    if (type !== 'same')
      changes.add(`${path}.type`, type === 'widened' ? 'field_type_widened' : 'field_type_changed');
    if (before.nullable !== after.nullable) {
      changes.add(`${path}.nullable`, after.nullable ? 'field_nullable_relaxed' : 'field_nullable_tightened');
    }
    const rankBefore = CLASSIFICATION_RANK[before.classification];
    const rankAfter = CLASSIFICATION_RANK[after.classification];
    if (rankAfter < rankBefore) changes.add(`${path}.classification`, 'field_classification_lowered');
    if (rankAfter > rankBefore) changes.add(`${path}.classification`, 'field_classification_raised');
    if (before.critical_data_element !== after.critical_data_element) {
      changes.add(
        `${path}.critical_data_element`,
        after.critical_data_element ? 'field_cde_added' : 'field_cde_removed',
      );
    }
    if (canonicalize(before.authoritative_definitions) !== canonicalize(after.authoritative_definitions)) {
      changes.add(`${path}.authoritative_definitions`, 'field_definitions_changed');
    }
    if (canonicalize(before.deprecation) !== canonicalize(after.deprecation)) {
      // A sunset moved earlier withdraws a promised date; adding guidance or a later date does not.
      const was = before.deprecation?.sunset ?? null;
      const now = after.deprecation?.sunset ?? null;
      changes.add(
        `${path}.deprecation`,
        was !== null && now !== null && now < was ? 'field_sunset_advanced' : 'field_deprecation_changed',
      );
    }
  }
}
