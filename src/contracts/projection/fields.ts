import { pointerOf } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import { type PhysicalType, parsePhysicalType } from '../authoring/physical-type.js';
import { type ContractRole, refuseContract } from '../authoring/refusals.js';
import type { AuthoredField } from '../authoring/schemas/resource.js';
import { compareCodeUnits, normalizeDistinctTexts, normalizeText } from '../authoring/text.js';
import { canonicalDate } from './literals.js';
import type { FieldPayload } from './payload.js';
import { normalizeUrl } from './url.js';

export interface FieldTable {
  /** Sorted by name: fields are a set keyed by their NFC name. */
  readonly payloads: readonly FieldPayload[];
  /** NFC field name → physical type. */
  readonly types: ReadonlyMap<string, PhysicalType>;
}

/** The typed field contract of a Source or Model. */
export function projectFields(fields: readonly AuthoredField[], role: ContractRole): FieldTable {
  const names = normalizeDistinctTexts(
    fields.map((field) => field.name),
    { role, field: 'fields[].name' },
    (index) => pointerOf(['fields', index, 'name']),
  );
  const known = new Set(names);
  const types = new Map<string, PhysicalType>();
  const payloads = fields.map((field, index): FieldPayload => {
    const name = names[index] as string;
    const type = parsePhysicalType(field.type, {
      role,
      field: 'fields[].type',
      location: { pointer: pointerOf(['fields', index, 'type']) },
    });
    types.set(name, type);
    return {
      name,
      type,
      nullable: field.nullable,
      classification: field.classification,
      critical_data_element: field.critical_data_element,
      authoritative_definitions: normalizedLinks(field.authoritative_definitions, role, index),
      deprecation:
        field.deprecation === undefined ? null : deprecation(field.deprecation, name, known, role, index),
    };
  });
  payloads.sort((a, b) => compareCodeUnits(a.name, b.name));
  return { payloads, types };
}

/** The physical types of a resource's fields, for bindings from another resource. */
export function fieldTypes(
  fields: readonly AuthoredField[],
  role: ContractRole,
): ReadonlyMap<string, PhysicalType> {
  const types = new Map<string, PhysicalType>();
  for (const field of fields) {
    types.set(
      normalizeText(field.name, { role, field: 'model' }),
      parsePhysicalType(field.type, { role, field: 'model' }),
    );
  }
  return types;
}

/** Authoritative links are a set: normalized, then sorted and deduplicated. */
function normalizedLinks(links: readonly string[], role: ContractRole, index: number): string[] {
  const field = 'fields[].authoritative_definitions';
  return [
    ...new Set(
      links.map((link, position) =>
        normalizeUrl(link, {
          role,
          field,
          location: { pointer: pointerOf(['fields', index, 'authoritative_definitions', position]) },
        }),
      ),
    ),
  ].sort(compareCodeUnits);
}

function deprecation(
  authored: NonNullable<AuthoredField['deprecation']>,
  own: string,
  known: ReadonlySet<string>,
  role: ContractRole,
  index: number,
): FieldPayload['deprecation'] {
  const at = (key: string) => ({ pointer: pointerOf(['fields', index, 'deprecation', key]) });
  const guidance = normalizeText(authored.guidance, {
    role,
    field: 'fields[].deprecation.guidance',
    location: at('guidance'),
  });
  let replacedBy: string | null = null;
  if (authored.replaced_by !== undefined) {
    const site = { role, field: 'fields[].deprecation.replaced_by', location: at('replaced_by') };
    replacedBy = normalizeText(authored.replaced_by, site);
    if (replacedBy === own || !known.has(replacedBy)) {
      const others = [...known].filter((name) => name !== own);
      const near = replacedBy === own ? undefined : didYouMean(replacedBy, others);
      throw refuseContract('contract_member_unavailable', {
        ...site,
        hint:
          replacedBy === own
            ? 'name another field of this resource: a field cannot replace itself'
            : `this resource declares no field '${replacedBy}'${near === undefined ? '' : `; ${near}`}`,
      });
    }
  }
  let sunset: string | null = null;
  if (authored.sunset !== undefined) {
    sunset = canonicalDate(authored.sunset) ?? null;
    if (sunset === null) {
      throw refuseContract('contract_field_invalid', {
        role,
        field: 'fields[].deprecation.sunset',
        location: at('sunset'),
        hint: 'expected a calendar date that exists, YYYY-MM-DD',
      });
    }
  }
  return { guidance, replaced_by: replacedBy, sunset };
}
