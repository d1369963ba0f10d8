import type { ContractRole } from '../authoring/refusals.js';
import { refuseContract } from '../authoring/refusals.js';
import type { ResourceKind } from '../authoring/schemas/resource.js';
import type { ValidatedResource } from '../authoring/validate.js';

export interface ReferenceSite {
  readonly role: ContractRole;
  readonly field: string;
}

/**
 * Resolves references from the validated project graph. It never creates a
 * registry entry or allocates an identity: it only answers which validated
 * resource a reference means, or refuses.
 *
 * Order: an explicit id first; if the reference is some resource's id, that
 * resource is the answer and must have an expected kind (no fallback to a
 * name then). Otherwise the project-local name, among resources of the
 * expected kinds: exactly one must match.
 */
export class ReferenceContext {
  readonly #byId: ReadonlyMap<string, ValidatedResource>;
  readonly #byName: ReadonlyMap<string, readonly ValidatedResource[]>;

  constructor(resources: readonly ValidatedResource[]) {
    const byId = new Map<string, ValidatedResource>();
    const byName = new Map<string, ValidatedResource[]>();
    for (const resource of resources) {
      byId.set(resource.id, resource);
      const named = byName.get(resource.name);
      if (named === undefined) byName.set(resource.name, [resource]);
      else named.push(resource);
    }
    this.#byId = byId;
    this.#byName = byName;
  }

  resolve<K extends ResourceKind>(
    reference: string,
    expected: readonly K[],
    site: ReferenceSite,
  ): Extract<ValidatedResource, { kind: K }> {
    const wanted = expected as readonly ResourceKind[];
    const byId = this.#byId.get(reference);
    if (byId !== undefined) {
      if (!wanted.includes(byId.kind)) throw refuseContract('contract_reference_kind_mismatch', site);
      return byId as Extract<ValidatedResource, { kind: K }>;
    }
    const named = this.#byName.get(reference) ?? [];
    const matching = named.filter((resource) => wanted.includes(resource.kind));
    if (matching.length > 1) throw refuseContract('contract_reference_ambiguous', site);
    const [only] = matching;
    if (only !== undefined) return only as Extract<ValidatedResource, { kind: K }>;
    if (named.length > 0) throw refuseContract('contract_reference_kind_mismatch', site);
    throw refuseContract('contract_reference_unavailable', site);
  }

  get(id: string): ValidatedResource | undefined {
    return this.#byId.get(id);
  }
}
