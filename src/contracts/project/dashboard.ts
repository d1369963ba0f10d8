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
  for (const usage of dashboard.uses) {
    const model = references.resolve(usage.semantic_model, ['SemanticModel'], {
      role: ROLE,
      field: 'uses[].semantic_model',
    });
    dependencies.add(model.id);
    const check = (
      names: readonly string[],
      declared: readonly { readonly name: string }[],
      field: string,
    ) => {
      requireDistinctNames(names, { role: ROLE, field });
      const known = new Set(declared.map((member) => member.name));
      for (const name of names) {
        if (!known.has(name)) throw refuseContract('contract_member_unavailable', { role: ROLE, field });
      }
    };
    check(usage.measures, model.measures, 'uses[].measures');
    check(usage.dimensions, model.dimensions, 'uses[].dimensions');
    check(usage.filters, model.filters, 'uses[].filters');
  }
  return [...dependencies].sort();
}
