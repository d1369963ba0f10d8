import { pointerOf } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import type { PhysicalType } from '../authoring/physical-type.js';
import { refuseContract } from '../authoring/refusals.js';
import type { AuthoredCheck, ModelResource } from '../authoring/schemas/resource.js';
import { normalizeDistinctTexts, normalizeText } from '../authoring/text.js';
import { projectDuckDbSql, STAND_IN_QUERY } from '../sql/from-duckdb.js';
import type { BuildContext, BuiltContent } from './build-context.js';
import { type FaultSink, THROW_FIRST } from './faults.js';
import { projectFields } from './fields.js';
import { typeLiteral } from './literals.js';
import type { CheckPayload, ModelContent } from './payload.js';
import { normalizedSet } from './sets.js';

const ROLE = 'model';

/**
 * Model content: output fields, checks (a set; severity materialized) and the
 * SQL as the closed AST with relations resolved to stable ids. The fields,
 * each check and the SQL are checked apart, so `faults` gets the faults of
 * all of them.
 */
export function buildModelContent(
  model: ModelResource,
  context: BuildContext,
  faults: FaultSink = THROW_FIRST,
): BuiltContent<ModelContent> {
  const fields = projectFields(model.fields, ROLE, faults);
  // Each check on its own; a refused one (in `faults`) drops out of the set, the others keep their place.
  const projected = model.checks.flatMap((check, index) => {
    const one = faults.check(() => projectCheck(check, index, fields.types, faults));
    return one === undefined ? [] : [{ one, index }];
  });
  const checks = normalizedSet(
    projected.map((entry) => entry.one),
    { role: ROLE, field: 'checks' },
    undefined,
    (index) => pointerOf(['checks', projected[index]?.index ?? index]),
    faults,
  );
  const site = { role: ROLE, field: 'sql', at: ['sql'], sql: true } as const;
  // The declared fields of each relation read, so an unqualified column two of them declare is refused.
  const declared = new Map<string, readonly string[]>();
  const sql = faults.check(() =>
    projectDuckDbSql(
      context.parsedSql(model.sql),
      {
        resolveRelation: (name, within) => {
          const resource = context.references.resolve(name, ['Source', 'Model'], {
            ...site,
            ...(within === undefined ? {} : { within }),
          });
          declared.set(
            resource.id,
            resource.fields.map((field) => field.name),
          );
          return resource.id;
        },
        relationColumns: (id) => declared.get(id),
        isRelationId: (name) => {
          const kind = context.references.get(name)?.kind;
          return kind === 'Source' || kind === 'Model';
        },
        relationsAt: (dotted) => context.references.sourcesAt(dotted),
      },
      model.sql,
      faults,
    ),
  );
  return {
    content: { fields: [...fields.payloads], checks, sql: sql?.query ?? STAND_IN_QUERY },
    dependencies: sql?.relations ?? [],
  };
}

/** A check names an output field of the model: the nearest declared one is offered for a typo. */
function fieldOf(
  name: string,
  types: ReadonlyMap<string, PhysicalType>,
  field: string,
  at: readonly (string | number)[],
): [string, PhysicalType] {
  const site = { role: ROLE, field, location: { pointer: pointerOf(at) } };
  const normalized = normalizeText(name, site);
  const type = types.get(normalized);
  if (type === undefined) {
    const near = didYouMean(normalized, types.keys());
    throw refuseContract('contract_member_unavailable', {
      ...site,
      hint: `the model declares no field '${normalized}'${near === undefined ? '' : `; ${near}`}`,
    });
  }
  return [normalized, type];
}

function projectCheck(
  check: AuthoredCheck,
  index: number,
  types: ReadonlyMap<string, PhysicalType>,
  faults: FaultSink,
): CheckPayload {
  switch (check.type) {
    case 'unique': {
      const site = {
        role: ROLE,
        field: 'checks[].fields',
        location: { pointer: pointerOf(['checks', index, 'fields']) },
      };
      // Unique-check fields are a set: order is not part of the check.
      const names = normalizeDistinctTexts(
        check.fields,
        site,
        (position) => pointerOf(['checks', index, 'fields', position]),
        faults,
      );
      names.forEach((name, position) => {
        faults.check(() => fieldOf(name, types, 'checks[].fields', ['checks', index, 'fields', position]));
      });
      // A repeated name was reported above: the set holds it once.
      return { type: 'unique', fields: normalizedSet([...new Set(names)], site), severity: check.severity };
    }
    case 'not_null':
      return {
        type: 'not_null',
        field: fieldOf(check.field, types, 'checks[].field', ['checks', index, 'field'])[0],
        severity: check.severity,
      };
    case 'accepted_values': {
      const [field, type] = fieldOf(check.field, types, 'checks[].field', ['checks', index, 'field']);
      const valueAt = (position: number) => pointerOf(['checks', index, 'values', position]);
      const site = { role: ROLE, field: 'checks[].values' };
      // Each value is typed on its own; the ones refused (into `faults`) drop out of the set.
      const typed = check.values.flatMap((value, position) => {
        const literal = faults.check(() =>
          typeLiteral(value, type, { ...site, location: { pointer: valueAt(position) } }, `field '${field}'`),
        );
        return literal === undefined ? [] : [{ literal, position }];
      });
      const values = normalizedSet(
        typed.map((one) => one.literal),
        site,
        typed.map((one) => check.values[one.position]),
        (index) => valueAt(typed[index]?.position ?? index),
        faults,
      );
      return { type: 'accepted_values', field, values, severity: check.severity };
    }
  }
}
