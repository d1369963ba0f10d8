import { pointerOf } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import { type PhysicalType, parsePhysicalType } from '../authoring/physical-type.js';
import { type ContractRole, refuseContract } from '../authoring/refusals.js';
import type { AuthoredField } from '../authoring/schemas/resource.js';
import { compareCodeUnits, normalizeDistinctTexts, normalizeText } from '../authoring/text.js';
import { type FaultSink, THROW_FIRST } from './faults.js';
import { canonicalDate } from './literals.js';
import type { FieldPayload } from './payload.js';
import { normalizeUrl } from './url.js';

export interface FieldTable {
  /** Sorted by name: fields are a set keyed by their NFC name. */
  readonly payloads: readonly FieldPayload[];
  /** NFC field name → physical type. */
  readonly types: ReadonlyMap<string, PhysicalType>;
}

/**
 * The typed field contract of a Source or Model. Each field is checked on
 * its own, each link and each part of a deprecation too, so that `faults`
 * gets every fault of the list (the result is then not used).
 */
export function projectFields(
  fields: readonly AuthoredField[],
  role: ContractRole,
  faults: FaultSink = THROW_FIRST,
): FieldTable {
  const names = normalizeDistinctTexts(
    fields.map((field) => field.name),
    { role, field: 'fields[].name' },
    (index) => pointerOf(['fields', index, 'name']),
    faults,
  );
  const known = new Set(names);
  const types = new Map<string, PhysicalType>();
  const payloads = fields.flatMap((field, index): FieldPayload[] => {
    const name = names[index] as string;
    const type = faults.check(() =>
      parsePhysicalType(field.type, {
        role,
        field: 'fields[].type',
        location: { pointer: pointerOf(['fields', index, 'type']) },
      }),
    );
    const links = normalizedLinks(field.authoritative_definitions, role, index, faults);
    const deprecated =
      field.deprecation === undefined
        ? null
        : deprecation(field.deprecation, name, known, role, index, faults);
    if (type === undefined || deprecated === undefined) return [];
    types.set(name, type);
    return [
      {
        name,
        type,
        nullable: field.nullable,
        classification: field.classification,
        critical_data_element: field.critical_data_element,
        authoritative_definitions: links,
        deprecation: deprecated,
      },
    ];
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

/** Authoritative links are a set: normalized, then sorted and deduplicated; each link checked on its own. */
function normalizedLinks(
  links: readonly string[],
  role: ContractRole,
  index: number,
  faults: FaultSink,
): string[] {
  const field = 'fields[].authoritative_definitions';
  return [
    ...new Set(
      links.flatMap((link, position) => {
        const normalized = faults.check(() =>
          normalizeUrl(link, {
            role,
            field,
            location: { pointer: pointerOf(['fields', index, 'authoritative_definitions', position]) },
          }),
        );
        return normalized === undefined ? [] : [normalized];
      }),
    ),
  ].sort(compareCodeUnits);
}

/** A field's deprecation, or undefined when a part of it was refused (into `faults`). */
function deprecation(
  authored: NonNullable<AuthoredField['deprecation']>,
  own: string,
  known: ReadonlySet<string>,
  role: ContractRole,
  index: number,
  faults: FaultSink,
): FieldPayload['deprecation'] | undefined {
  const at = (key: string) => ({ pointer: pointerOf(['fields', index, 'deprecation', key]) });
  const guidance = faults.check(() =>
    normalizeText(authored.guidance, {
      role,
      field: 'fields[].deprecation.guidance',
      location: at('guidance'),
    }),
  );
  // Another field of this resource, never the field itself.
  const replacement = (written: string): string => {
    const site = { role, field: 'fields[].deprecation.replaced_by', location: at('replaced_by') };
    const name = normalizeText(written, site);
    if (name === own || !known.has(name)) {
      const others = [...known].filter((other) => other !== own);
      const near = name === own ? undefined : didYouMean(name, others);
      throw refuseContract('contract_member_unavailable', {
        ...site,
        hint:
          name === own
            ? 'name another field of this resource: a field cannot replace itself'
            : `this resource declares no field '${name}'${near === undefined ? '' : `; ${near}`}`,
      });
    }
    return name;
  };
  const replacedBy =
    authored.replaced_by === undefined
      ? null
      : faults.check(() => replacement(authored.replaced_by as string));
  const sunset =
    authored.sunset === undefined
      ? null
      : faults.check(() => {
          // The schema checked the date; this stays as the projection's own guard.
          const date = canonicalDate(authored.sunset as string);
          if (date === undefined) {
            throw refuseContract('contract_field_invalid', {
              role,
              field: 'fields[].deprecation.sunset',
              location: at('sunset'),
              hint: 'expected a calendar date that exists, YYYY-MM-DD',
            });
          }
          return date;
        });
  if (guidance === undefined || replacedBy === undefined || sunset === undefined) return undefined;
  return { guidance, replaced_by: replacedBy, sunset };
}
