import { pointerOf } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import { splitMemberTarget } from '../authoring/identifiers.js';
import {
  isNumericType,
  isOrderedType,
  isTemporalType,
  type PhysicalType,
} from '../authoring/physical-type.js';
import { refuseContract } from '../authoring/refusals.js';
import type { SemanticModelResource } from '../authoring/schemas/resource.js';
import { normalizeDistinctTexts, normalizeText } from '../authoring/text.js';
import type { BuildContext, BuiltContent } from './build-context.js';
import { type FaultSink, THROW_FIRST } from './faults.js';
import { fieldTypes } from './fields.js';
import { typeLiteral } from './literals.js';
import type { SemanticModelContent } from './payload.js';
import { byName, normalizedSet, requireDistinctNames } from './sets.js';

const ROLE = 'semantic_model';

type Content = SemanticModelContent;
type Binding = Content['dimensions'][number]['binding'];
type Path = readonly (string | number)[];

/** The model a semantic model reads: every binding is one of its fields. */
interface Dataset {
  readonly id: string;
  readonly types: ReadonlyMap<string, PhysicalType>;
}

/**
 * SemanticModel content. References resolve through the project graph; every
 * binding carries the full physical field reference (dataset id + field) and
 * its type, and filter literals are typed through that binding — never
 * through a dimension's presentation name. Contractual defaults are
 * materialized: time granularity (day), empty-result behaviour (zero for
 * counts, null otherwise) and each measure's time dimension.
 */
export function buildSemanticModelContent(
  model: SemanticModelResource,
  context: BuildContext,
  faults: FaultSink = THROW_FIRST,
): BuiltContent<Content> {
  const { references } = context;
  requireDistinctMembers(model, faults);
  const resolved = faults.check(() =>
    references.resolve(model.model, ['Model'], { role: ROLE, field: 'model', at: ['model'] }),
  );
  // Every binding is to the dataset: without it, nothing more of the model can be checked.
  if (resolved === undefined) return { content: STAND_IN, dependencies: [] };
  const dataset: Dataset = { id: resolved.id, types: fieldTypes(resolved.fields, ROLE) };

  const entities = byName(
    model.entities.map((entity, index) => ({
      name: entity.name,
      type: entity.type,
      fields: fieldTuple(dataset, entity.fields, 'entities[].fields', ['entities', index, 'fields'], faults),
    })),
  );
  const dimensions = dimensionsOf(model, dataset, faults);
  // The time dimensions as declared (also those refused above), so a measure naming one is not refused again.
  const timeDimensions = model.dimensions.filter((d) => d.type === 'time').map((d) => d.name);
  const timeDimension = (name: string | undefined, field: string, at: Path): string | null => {
    if (name === undefined) return null;
    if (!timeDimensions.includes(name)) {
      const near = didYouMean(name, timeDimensions);
      const listed =
        timeDimensions.length === 0 ? 'declares no time dimension' : `has no time dimension '${name}'`;
      throw refuseContract('contract_member_unavailable', {
        role: ROLE,
        field,
        location: { pointer: pointerOf(at) },
        hint: `this semantic model ${listed}${near === undefined ? '' : `; ${near}`}`,
      });
    }
    return name;
  };
  const defaultTime =
    faults.check(() =>
      timeDimension(model.defaults.agg_time_dimension, 'defaults.agg_time_dimension', [
        'defaults',
        'agg_time_dimension',
      ]),
    ) ?? null;
  const measures = byName(
    model.measures.flatMap((measure, index) => {
      const measured = faults.check(() => measureOf(measure, index, dataset));
      const time = faults.check(() =>
        timeDimension(measure.agg_time_dimension, 'measures[].agg_time_dimension', [
          'measures',
          index,
          'agg_time_dimension',
        ]),
      );
      return measured === undefined ? [] : [{ ...measured, agg_time_dimension: time ?? defaultTime }];
    }),
  );
  return {
    content: {
      dataset: dataset.id,
      defaults: { agg_time_dimension: defaultTime },
      entities,
      dimensions,
      measures,
      relationships: relationshipsOf(model, dataset, references, faults),
      filters: filtersOf(model, dimensions, faults),
    },
    dependencies: [dataset.id],
  };
}

/** Stands for the content of a semantic model whose dataset was refused (the content is then not used). */
const STAND_IN: Content = {
  dataset: '',
  defaults: { agg_time_dimension: null },
  entities: [],
  dimensions: [],
  measures: [],
  relationships: [],
  filters: [],
};

/** Entities, dimensions and measures share one namespace of member names. */
function requireDistinctMembers(model: SemanticModelResource, faults: FaultSink): void {
  const members = [
    ...model.entities.map((entity, index) => ({ name: entity.name, at: ['entities', index, 'name'] })),
    ...model.dimensions.map((dimension, index) => ({
      name: dimension.name,
      at: ['dimensions', index, 'name'],
    })),
    ...model.measures.map((measure, index) => ({ name: measure.name, at: ['measures', index, 'name'] })),
  ];
  requireDistinctNames(
    members.map((member) => member.name),
    { role: ROLE, field: 'dimensions[].name' },
    (index) => pointerOf(members[index]?.at ?? []),
    (name) => `'${name}' is declared twice: entities, dimensions and measures share one namespace`,
    faults,
  );
  requireDistinctNames(
    model.relationships.map((relationship) => relationship.name),
    { role: ROLE, field: 'relationships[].name' },
    (index) => pointerOf(['relationships', index, 'name']),
    undefined,
    faults,
  );
  requireDistinctNames(
    model.filters.map((filter) => filter.name),
    { role: ROLE, field: 'filters[].name' },
    (index) => pointerOf(['filters', index, 'name']),
    undefined,
    faults,
  );
}

function bind(dataset: Dataset, field: string, site: string, at: Path): Binding {
  const name = normalizeText(field, { role: ROLE, field: site, location: { pointer: pointerOf(at) } });
  const type = dataset.types.get(name);
  if (type === undefined) {
    const near = didYouMean(name, dataset.types.keys());
    throw refuseContract('contract_binding_missing', {
      role: ROLE,
      field: site,
      location: { pointer: pointerOf(at) },
      hint: `${dataset.id} has no field '${name}'${near === undefined ? '' : `; ${near}`}`,
    });
  }
  return { resource: dataset.id, field: name, type };
}

/** Field names of the dataset, distinct, in the order written (entity keys and relationship columns). */
function fieldTuple(
  dataset: Dataset,
  fields: readonly string[],
  site: string,
  at: Path,
  faults: FaultSink,
): string[] {
  const names = normalizeDistinctTexts(
    fields,
    { role: ROLE, field: site },
    (position) => pointerOf([...at, position]),
    faults,
  );
  names.forEach((name, position) => {
    if (dataset.types.has(name)) return;
    const near = didYouMean(name, dataset.types.keys());
    faults.check(() => {
      throw refuseContract('contract_member_unavailable', {
        role: ROLE,
        field: site,
        location: { pointer: pointerOf([...at, position]) },
        hint: `${dataset.id} has no field '${name}'${near === undefined ? '' : `; ${near}`}`,
      });
    });
  });
  return names;
}

function dimensionsOf(
  model: SemanticModelResource,
  dataset: Dataset,
  faults: FaultSink,
): Content['dimensions'] {
  return byName(
    model.dimensions.flatMap((dimension, index) => {
      const one = dimensionOf(dimension, index, dataset, faults);
      return one === undefined ? [] : [one];
    }),
  );
}

/** One dimension: its binding and its granularity are checked apart. */
function dimensionOf(
  dimension: SemanticModelResource['dimensions'][number],
  index: number,
  dataset: Dataset,
  faults: FaultSink,
): Content['dimensions'][number] | undefined {
  const time = dimension.type === 'time';
  const binding = faults.check(() => {
    const bound = bind(dataset, dimension.field, 'dimensions[].field', ['dimensions', index, 'field']);
    if (time && !isTemporalType(bound.type)) {
      throw refuseContract('contract_binding_conflict', {
        role: ROLE,
        field: 'dimensions[].field',
        location: { pointer: pointerOf(['dimensions', index, 'field']) },
        hint: `a time dimension needs a date, timestamp or timestamp_tz field; '${bound.field}' is ${bound.type.name}`,
      });
    }
    return bound;
  });
  if (!time && dimension.time_granularity !== undefined) {
    faults.check(() => {
      throw refuseContract('contract_field_invalid', {
        role: ROLE,
        field: 'dimensions[].time_granularity',
        location: { pointer: pointerOf(['dimensions', index, 'time_granularity']) },
        hint: 'only a time dimension has a time_granularity',
      });
    });
  }
  if (binding === undefined) return undefined;
  return {
    name: dimension.name,
    type: dimension.type,
    binding,
    time_granularity: time ? (dimension.time_granularity ?? 'day') : null,
  };
}

/** A measure without its time dimension, which the caller resolves against the model's defaults. */
function measureOf(
  measure: SemanticModelResource['measures'][number],
  index: number,
  dataset: Dataset,
): Omit<Content['measures'][number], 'agg_time_dimension'> {
  let binding: Binding | null = null;
  if (measure.field === undefined) {
    if (measure.agg !== 'count')
      throw refuseContract('contract_binding_missing', {
        role: ROLE,
        field: 'measures[].field',
        location: { pointer: pointerOf(['measures', index]) },
        hint: `add 'field': only count may omit it`,
      });
  } else {
    binding = bind(dataset, measure.field, 'measures[].field', ['measures', index, 'field']);
    if (!aggregationApplies(measure.agg, binding.type)) {
      throw refuseContract('contract_aggregation_type_mismatch', {
        role: ROLE,
        field: 'measures[].agg',
        location: { pointer: pointerOf(['measures', index, 'agg']) },
        hint: `${measure.agg} needs ${aggregationNeeds(measure.agg)} field; '${binding.field}' is ${binding.type.name}`,
      });
    }
  }
  const counts = measure.agg === 'count' || measure.agg === 'count_distinct';
  const emptyResult: 'null' | 'zero' =
    measure.empty_result === undefined ? (counts ? 'zero' : 'null') : (measure.empty_result ?? 'null');
  return { name: measure.name, agg: measure.agg, binding, empty_result: emptyResult };
}

function relationshipsOf(
  model: SemanticModelResource,
  dataset: Dataset,
  references: BuildContext['references'],
  faults: FaultSink,
): Content['relationships'] {
  return byName(
    model.relationships.flatMap((relationship, index) => {
      const fields = fieldTuple(
        dataset,
        relationship.fields,
        'relationships[].fields',
        ['relationships', index, 'fields'],
        faults,
      );
      const to = faults.check(() =>
        memberTarget(references, relationship.to, 'relationships[].to', ['relationships', index, 'to']),
      );
      if (to !== undefined && to.arity !== fields.length) {
        faults.check(() => {
          throw refuseContract('contract_arity_mismatch', {
            role: ROLE,
            field: 'relationships[].fields',
            location: { pointer: pointerOf(['relationships', index, 'fields']) },
            hint: `the target entity has ${to.arity} field${to.arity === 1 ? '' : 's'}, this list ${fields.length}`,
          });
        });
      }
      // Paths keep their order: they are a route, not a set.
      const path = relationship.path.map((hop, step) =>
        faults.check(
          () =>
            memberTarget(references, hop, 'relationships[].path', ['relationships', index, 'path', step]).ref,
        ),
      );
      if (to === undefined || path.some((hop) => hop === undefined)) return [];
      return [
        {
          name: relationship.name,
          fields,
          to: to.ref,
          cardinality: relationship.cardinality,
          path: path as NonNullable<(typeof path)[number]>[],
        },
      ];
    }),
  );
}

function memberTarget(references: BuildContext['references'], target: string, field: string, at: Path) {
  // The member suffix is kept; only the resource part resolves.
  const { resource, member } = splitMemberTarget(target);
  const resolved = references.resolve(resource, ['SemanticModel'], { role: ROLE, field, at });
  const entity = resolved.entities.find((candidate) => candidate.name === member);
  if (entity === undefined) {
    const near = didYouMean(
      member,
      resolved.entities.map((candidate) => candidate.name),
    );
    throw refuseContract('contract_member_unavailable', {
      role: ROLE,
      field,
      location: { pointer: pointerOf(at) },
      hint: `${resolved.id} has no entity '${member}'${near === undefined ? '' : `; ${near}`}`,
    });
  }
  // Relationship targets are lateral references, not dependencies: semantic
  // models commonly relate to each other in both directions (and to
  // themselves), which a consumer → dependency graph must not turn into cycles.
  return { ref: { resource: resolved.id, member }, arity: entity.fields.length };
}

/**
 * Filter conditions name dimensions; their literals are typed through the
 * dimension's binding. Each condition and each literal is checked on its
 * own; a condition on a dimension whose binding was refused is skipped (that
 * fault is reported at the dimension).
 */
function filtersOf(
  model: SemanticModelResource,
  dimensions: Content['dimensions'],
  faults: FaultSink,
): Content['filters'] {
  const dimensionBindings = new Map(dimensions.map((dimension) => [dimension.name, dimension.binding]));
  const declared = new Set(model.dimensions.map((dimension) => dimension.name));
  return byName(
    model.filters.map((filter, index) => {
      const kept: number[] = [];
      const conditions = filter.conditions.flatMap((condition, position) => {
        const at: Path = ['filters', index, 'conditions', position];
        const binding = dimensionBindings.get(condition.dimension);
        if (binding === undefined) {
          if (declared.has(condition.dimension)) return [];
          const near = didYouMean(condition.dimension, declared);
          faults.check(() => {
            throw refuseContract('contract_binding_missing', {
              role: ROLE,
              field: 'filters[].conditions[].dimension',
              location: { pointer: pointerOf([...at, 'dimension']) },
              hint: `this semantic model has no dimension '${condition.dimension}'${near === undefined ? '' : `; ${near}`}`,
            });
          });
          return [];
        }
        // The key as written: one `value`, or a list of `values` (docs/contracts.md#semanticmodel).
        const key = 'values' in condition ? 'values' : 'value';
        const site = { role: ROLE, field: `filters[].conditions[].${key}` };
        const authored =
          'values' in condition ? condition.values : 'value' in condition ? [condition.value] : [];
        const pointerAt = (item: number) =>
          pointerOf(key === 'values' ? [...at, 'values', item] : [...at, 'value']);
        const subject = `dimension '${condition.dimension}' (field '${binding.field}')`;
        const typed = authored.flatMap((literal, item) => {
          const one = faults.check(() =>
            typeLiteral(literal, binding.type, { ...site, location: { pointer: pointerAt(item) } }, subject),
          );
          return one === undefined ? [] : [{ one, item }];
        });
        kept.push(position);
        return [
          {
            dimension: condition.dimension,
            binding,
            op: condition.op,
            values: normalizedSet(
              typed.map((entry) => entry.one),
              site,
              typed.map((entry) => authored[entry.item]),
              (item) => pointerAt(typed[item]?.item ?? item),
              faults,
            ),
          },
        ];
      });
      return {
        name: filter.name,
        conditions: normalizedSet(
          conditions,
          { role: ROLE, field: 'filters[].conditions' },
          undefined,
          (position) => pointerOf(['filters', index, 'conditions', kept[position] ?? position]),
          faults,
        ),
      };
    }),
  );
}

/** The kind of field an aggregation needs, for its refusal's hint. */
function aggregationNeeds(agg: string): string {
  return agg === 'min' || agg === 'max' ? 'an ordered (not binary, json or boolean)' : 'a numeric';
}

function aggregationApplies(agg: string, type: PhysicalType): boolean {
  switch (agg) {
    case 'sum':
    case 'average':
    case 'median':
      return isNumericType(type);
    case 'min':
    case 'max':
      return isOrderedType(type);
    default:
      return true;
  }
}
