import { pointerOf } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import { refuseContract } from '../authoring/refusals.js';
import type { DashboardResource } from '../authoring/schemas/resource.js';
import { type FaultSink, THROW_FIRST } from '../projection/faults.js';
import { requireDistinctNames } from '../projection/sets.js';
import type { ReferenceContext } from './reference-context.js';

const ROLE = 'dashboard';

/**
 * Dashboards are consumers: they have no contract projection, but every
 * reference they make is checked against the project graph, and their
 * dependencies (the semantic models they read) feed it. Each use and each
 * member it names is checked on its own, so `faults` gets every fault.
 */
export function checkDashboard(
  dashboard: DashboardResource,
  references: ReferenceContext,
  faults: FaultSink = THROW_FIRST,
): readonly string[] {
  const dependencies = new Set<string>();
  dashboard.uses.forEach((usage, index) => {
    const model = faults.check(() =>
      references.resolve(usage.semantic_model, ['SemanticModel'], {
        role: ROLE,
        field: 'uses[].semantic_model',
        at: ['uses', index, 'semantic_model'],
      }),
    );
    const check = (
      names: readonly string[],
      declared: readonly { readonly name: string }[] | undefined,
      key: 'measures' | 'dimensions' | 'filters',
    ) => {
      const field = `uses[].${key}`;
      requireDistinctNames(
        names,
        { role: ROLE, field },
        (position) => pointerOf(['uses', index, key, position]),
        undefined,
        faults,
      );
      // Members of a semantic model that could not be resolved are not checked (that fault is reported once).
      if (declared === undefined) return;
      const known = declared.map((member) => member.name);
      names.forEach((name, position) => {
        if (known.includes(name)) return;
        const near = didYouMean(name, known);
        faults.check(() => {
          throw refuseContract('contract_member_unavailable', {
            role: ROLE,
            field,
            location: { pointer: pointerOf(['uses', index, key, position]) },
            hint: `${model?.id} has no ${key.slice(0, -1)} '${name}'${near === undefined ? '' : `; ${near}`}`,
          });
        });
      });
    };
    if (model !== undefined) dependencies.add(model.id);
    check(usage.measures, model?.measures, 'measures');
    check(usage.dimensions, model?.dimensions, 'dimensions');
    check(usage.filters, model?.filters, 'filters');
  });
  return [...dependencies].sort();
}
