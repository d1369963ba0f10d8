import { pointerOf } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import { refuseContract } from '../authoring/refusals.js';
import type { DashboardResource } from '../authoring/schemas/resource.js';
import { requireDistinctNames } from '../projection/sets.js';
import type { ReferenceContext } from './reference-context.js';

const ROLE = 'dashboard';

/**
 * Dashboards are consumers: they have no contract projection, but every
 * reference they make is checked against the project graph, and their
 * dependencies (the semantic models they read) feed it.
 */
export function checkDashboard(
  dashboard: DashboardResource,
  references: ReferenceContext,
): readonly string[] {
  const dependencies = new Set<string>();
  dashboard.uses.forEach((usage, index) => {
    const model = references.resolve(usage.semantic_model, ['SemanticModel'], {
      role: ROLE,
      field: 'uses[].semantic_model',
      at: ['uses', index, 'semantic_model'],
    });
    dependencies.add(model.id);
    const check = (
      names: readonly string[],
      declared: readonly { readonly name: string }[],
      key: 'measures' | 'dimensions' | 'filters',
    ) => {
      const field = `uses[].${key}`;
      requireDistinctNames(names, { role: ROLE, field }, (position) =>
        pointerOf(['uses', index, key, position]),
      );
      const known = declared.map((member) => member.name);
      names.forEach((name, position) => {
        if (known.includes(name)) return;
        const near = didYouMean(name, known);
        throw refuseContract('contract_member_unavailable', {
          role: ROLE,
          field,
          location: { pointer: pointerOf(['uses', index, key, position]) },
          hint: `${model.id} has no ${key.slice(0, -1)} '${name}'${near === undefined ? '' : `; ${near}`}`,
        });
      });
    };
    check(usage.measures, model.measures, 'measures');
    check(usage.dimensions, model.dimensions, 'dimensions');
    check(usage.filters, model.filters, 'filters');
  });
  return [...dependencies].sort();
}
