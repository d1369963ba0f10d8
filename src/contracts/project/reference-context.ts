import { pointerOf } from '../../core/input/index.js';
import { didYouMean, type ValuePosition } from '../../core/refusal/index.js';
import type { ContractRole } from '../authoring/refusals.js';
import { refuseContract } from '../authoring/refusals.js';
import type { ResourceKind } from '../authoring/schemas/resource.js';
import { compareCodeUnits } from '../authoring/text.js';
import type { ValidatedResource } from '../authoring/validate.js';

export interface ReferenceSite {
  readonly role: ContractRole;
  /** The allowlisted field path, e.g. `uses[].semantic_model`. */
  readonly field: string;
  /** Where the reference is written, with indices: `['uses', 0, 'semantic_model']`. */
  readonly at?: readonly (string | number)[];
  /** Where inside that value, for a table named in model SQL (line and column of the SQL). */
  readonly within?: ValuePosition;
  /**
   * The reference is a table in model SQL, where an id is written as one
   * quoted identifier (`"retail.source.orders"`): a hint offering ids shows
   * them so, since an unquoted id reads as a schema-qualified table.
   */
  readonly sql?: boolean;
}

/**
 * What is known of files refused before the graph was built (unreadable,
 * or refused by their schema): the ids and names they declare as far as they
 * can be read, each with the files (as the operator finds them) that declare
 * it, and the files whose id or name cannot be read. A reference that could
 * mean one of them is not answered (see `takeBlocked`).
 */
export interface RefusedIdentities {
  readonly ids: ReadonlyMap<string, readonly string[]>;
  readonly names: ReadonlyMap<string, readonly string[]>;
  readonly unidentified: readonly string[];
}

const NONE: RefusedIdentities = { ids: new Map(), names: new Map(), unidentified: [] };

/**
 * Resolves references from the validated project graph. It never creates a
 * registry entry or allocates an identity: it only answers which validated
 * resource a reference means, or refuses.
 *
 * Order: an explicit id first; if the reference is some resource's id, that
 * resource is the answer and must have an expected kind (no fallback to a
 * name then). Otherwise the project-local name, among resources of the
 * expected kinds: exactly one must match.
 *
 * When some files were refused, a reference whose answer could depend on
 * them is refused too, and `takeBlocked()` then says so: the project reports
 * that resource as blocked by the refused file, not as a second error.
 */
export class ReferenceContext {
  readonly #byId: ReadonlyMap<string, ValidatedResource>;
  readonly #byName: ReadonlyMap<string, readonly ValidatedResource[]>;
  readonly #refused: RefusedIdentities;
  #blockedBy: readonly string[] = [];

  constructor(resources: readonly ValidatedResource[], refused: RefusedIdentities = NONE) {
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
    this.#refused = refused;
  }

  /**
   * The sources whose `location` the dotted name of model SQL writes: all of
   * `catalog.schema.table` as the location declares them, or its last two
   * parts, compared case-insensitively as SQL reads unquoted names.
   */
  sourcesAt(dotted: string): { readonly id: string; readonly name: string }[] {
    const wanted = dotted.toLowerCase();
    const found: { id: string; name: string }[] = [];
    for (const resource of this.#byId.values()) {
      if (resource.kind !== 'Source' || resource.location?.table === undefined) continue;
      const { catalog, schema, table } = resource.location;
      const parts = [catalog, schema, table].filter((part): part is string => part !== undefined);
      const full = parts.join('.').toLowerCase();
      const short = parts.slice(-2).join('.').toLowerCase();
      if (wanted === full || (parts.length > 2 && wanted === short))
        found.push({ id: resource.id, name: resource.name });
    }
    return found.sort((a, b) => compareCodeUnits(a.id, b.id));
  }

  resolve<K extends ResourceKind>(
    reference: string,
    expected: readonly K[],
    site: ReferenceSite,
  ): Extract<ValidatedResource, { kind: K }> {
    const wanted = expected as readonly ResourceKind[];
    const refuse = (
      code:
        | 'contract_reference_unavailable'
        | 'contract_reference_ambiguous'
        | 'contract_reference_kind_mismatch',
      hint: string,
    ) => {
      const pointer = site.at === undefined ? '' : pointerOf(site.at);
      return refuseContract(code, {
        role: site.role,
        field: site.field,
        hint,
        ...(pointer === '' ? {} : { location: { pointer } }),
        ...(site.within === undefined ? {} : { within: site.within }),
      });
    };
    const blocked = (files: readonly string[]) => {
      this.#blockedBy = [...new Set([...this.#blockedBy, ...files])];
      return refuse('contract_reference_unavailable', `'${reference}' may be declared in a refused file`);
    };
    const kinds = wanted.join(' or ');
    const refusedWithId = this.#refused.ids.get(reference);
    if (refusedWithId !== undefined) throw blocked(refusedWithId);
    const byId = this.#byId.get(reference);
    if (byId !== undefined) {
      if (!wanted.includes(byId.kind))
        throw refuse(
          'contract_reference_kind_mismatch',
          `'${reference}' is a ${byId.kind}; expected ${kinds}`,
        );
      return byId as Extract<ValidatedResource, { kind: K }>;
    }
    const refusedWithName = this.#refused.names.get(reference);
    if (refusedWithName !== undefined) throw blocked(refusedWithName);
    const named = this.#byName.get(reference) ?? [];
    const matching = named.filter((resource) => wanted.includes(resource.kind));
    if (matching.length > 1) {
      throw refuse(
        'contract_reference_ambiguous',
        site.sql === true
          ? `'${reference}' is the name of ${matching.length} resources; use an id, in double quotes as one identifier: ${matching.map((r) => `"${r.id}"`).join(', ')}`
          : `'${reference}' is the name of ${matching.length} resources; use an id: ${matching.map((r) => r.id).join(', ')}`,
      );
    }
    const [only] = matching;
    if (only !== undefined) return only as Extract<ValidatedResource, { kind: K }>;
    if (this.#refused.unidentified.length > 0) throw blocked(this.#refused.unidentified);
    if (named.length > 0) {
      throw refuse(
        'contract_reference_kind_mismatch',
        `'${reference}' names a ${named[0]?.kind ?? 'resource'}; expected ${kinds}`,
      );
    }
    const candidates = [...this.#byId.values()]
      .filter((resource) => wanted.includes(resource.kind))
      .flatMap((resource) => [resource.id, resource.name]);
    const near = didYouMean(reference, candidates);
    throw refuse(
      'contract_reference_unavailable',
      `no ${kinds} of the project has the id or name '${reference}'${near === undefined ? '' : `; ${near}`}`,
    );
  }

  get(id: string): ValidatedResource | undefined {
    return this.#byId.get(id);
  }

  /**
   * The refused files a refusal since the last call may only reflect (and
   * clears them): empty when none did.
   */
  takeBlocked(): readonly string[] {
    const files = this.#blockedBy;
    this.#blockedBy = [];
    return files;
  }
}
