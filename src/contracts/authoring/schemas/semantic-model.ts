import { z } from 'zod';
import { MEMBER_TARGET_PATTERN } from '../identifiers.js';
import {
  ContractMetadata,
  FieldName,
  Line,
  Literal,
  Name,
  Prose,
  Reference,
  ResourceId,
  Tags,
} from './common.js';

const MemberTarget = z
  .string()
  .max(192)
  .regex(MEMBER_TARGET_PATTERN)
  .describe('A semantic model reference (id or name) followed by .entity, e.g. customers.customer.');

const Granularity = z.enum(['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

const EntitySchema = z.strictObject({
  name: Name,
  type: z.enum(['primary', 'unique', 'foreign', 'natural']),
  fields: z
    .array(FieldName)
    .min(1)
    .max(16)
    .describe('The ordered tuple of dataset fields that identifies the entity.'),
  description: Prose.optional(),
});

const DimensionSchema = z.strictObject({
  name: Name,
  type: z.enum(['categorical', 'time']),
  field: FieldName.describe('The dataset field this dimension is bound to.'),
  time_granularity: Granularity.optional().describe('Time dimensions only; day when absent.'),
  label: Line.optional(),
  description: Prose.optional(),
});

const MeasureSchema = z.strictObject({
  name: Name,
  agg: z.enum(['sum', 'count', 'count_distinct', 'min', 'max', 'average', 'median']),
  field: FieldName.optional().describe('The dataset field aggregated; only count may omit it (counts rows).'),
  empty_result: z
    .enum(['zero'])
    .nullable()
    .optional()
    .describe('Value over no rows: null or zero. Default: zero for count and count_distinct, else null.'),
  agg_time_dimension: Name.optional().describe(
    'Time dimension of the measure; defaults.agg_time_dimension when absent.',
  ),
  label: Line.optional(),
  description: Prose.optional(),
});

const RelationshipSchema = z.strictObject({
  name: Name,
  fields: z
    .array(FieldName)
    .min(1)
    .max(16)
    .describe('The ordered tuple of dataset fields joined to the target entity tuple.'),
  to: MemberTarget,
  cardinality: z.enum(['many_to_one', 'one_to_one', 'one_to_many']),
  path: z
    .array(MemberTarget)
    .max(16)
    .default([])
    .describe('Ordered intermediate hops (semantic model.entity) between this model and the target.'),
  description: Prose.optional(),
});

const FilterOperand = { dimension: Name.describe('A dimension of this semantic model.') };

/** Condition operators by what they compare with: one `value`, a list of `values`, or nothing. */
export const CONDITION_OPERATORS = {
  value: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
  values: ['in', 'not_in'],
  none: ['is_null', 'is_not_null'],
} as const;

const ConditionSchema = z.discriminatedUnion('op', [
  z.strictObject({ ...FilterOperand, op: z.enum(CONDITION_OPERATORS.value), value: Literal }),
  z.strictObject({
    ...FilterOperand,
    op: z.enum(CONDITION_OPERATORS.values),
    values: z.array(Literal).min(1).max(1000).describe('A set of literals; order does not matter.'),
  }),
  z.strictObject({ ...FilterOperand, op: z.enum(CONDITION_OPERATORS.none) }),
]);

const FilterSchema = z.strictObject({
  name: Name,
  conditions: z
    .array(ConditionSchema)
    .min(1)
    .max(64)
    .describe('Conditions that all hold (AND); order does not matter.'),
  description: Prose.optional(),
});

export const SemanticModelSchema = z
  .strictObject({
    kind: z.literal('SemanticModel'),
    id: ResourceId,
    name: Name.describe('Project-local name; references may use it instead of the id.'),
    contract: ContractMetadata.optional(),
    description: Prose.optional(),
    tags: Tags.optional(),
    model: Reference.describe('The dataset: a model of the project, by id or name.'),
    defaults: z
      .strictObject({
        agg_time_dimension: Name.optional().describe('Default time dimension of every measure.'),
      })
      .default({})
      .describe('Declared time defaults.'),
    entities: z.array(EntitySchema).max(256).default([]),
    dimensions: z.array(DimensionSchema).max(1000).default([]),
    measures: z.array(MeasureSchema).max(1000).default([]),
    relationships: z.array(RelationshipSchema).max(256).default([]),
    filters: z.array(FilterSchema).max(256).default([]).describe('Named filters with typed literals.'),
  })
  .describe('A semantic model: entities, dimensions, measures, relationships and filters over one model.');
