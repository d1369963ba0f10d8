import { z } from 'zod';
import {
  NAME_PATTERN,
  RESOURCE_ID_MAX,
  RESOURCE_ID_PATTERN,
  VERSION_PATTERN,
} from '../authoring/identifiers.js';
import { SqlQuerySchema } from '../sql/ast.js';
import { PhysicalTypeSchema } from './physical-type-schema.js';

/**
 * The leapview.contract/v1 projection payload: an explicit allowlist written
 * once as a closed schema. Projection builds exactly this shape; decoding
 * validates published bytes against it. Every key is always present (absent
 * values are explicit nulls or empty arrays), so one contract has one
 * encoding.
 */
export const PROFILE = 'leapview.contract/v1';

const Id = z.string().max(RESOURCE_ID_MAX).regex(RESOURCE_ID_PATTERN);
const Member = z.string().regex(NAME_PATTERN);
const FieldName = z.string().min(1).max(128);

export const TypedLiteralSchema = z.union([
  z.strictObject({ type: z.literal('string'), value: z.string().max(4096) }),
  z.strictObject({ type: z.literal('boolean'), value: z.boolean() }),
  z.strictObject({
    type: z.enum(['integer', 'decimal', 'float', 'date', 'time', 'timestamp', 'timestamp_tz']),
    value: z.string().min(1).max(2048),
  }),
]);

const Severity = z.enum(['error', 'warn']);

export const FieldPayloadSchema = z.strictObject({
  name: FieldName,
  type: PhysicalTypeSchema,
  nullable: z.boolean(),
  classification: z.enum(['public', 'internal', 'confidential', 'restricted']),
  critical_data_element: z.boolean(),
  authoritative_definitions: z.array(z.string().min(1).max(2048)),
  deprecation: z
    .strictObject({
      guidance: z.string().min(1).max(4096),
      replaced_by: FieldName.nullable(),
      sunset: z.string().nullable(),
    })
    .nullable(),
});

export const CheckPayloadSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('unique'), fields: z.array(FieldName).min(1), severity: Severity }),
  z.strictObject({ type: z.literal('not_null'), field: FieldName, severity: Severity }),
  z.strictObject({
    type: z.literal('accepted_values'),
    field: FieldName,
    values: z.array(TypedLiteralSchema).min(1),
    severity: Severity,
  }),
]);

const Binding = z.strictObject({ resource: Id, field: FieldName, type: PhysicalTypeSchema });
const MemberRef = z.strictObject({ resource: Id, member: Member });

export const SemanticContentSchema = z.strictObject({
  dataset: Id,
  defaults: z.strictObject({ agg_time_dimension: Member.nullable() }),
  entities: z.array(
    z.strictObject({
      name: Member,
      type: z.enum(['primary', 'unique', 'foreign', 'natural']),
      fields: z.array(FieldName).min(1),
    }),
  ),
  dimensions: z.array(
    z.strictObject({
      name: Member,
      type: z.enum(['categorical', 'time']),
      binding: Binding,
      time_granularity: z
        .enum(['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'])
        .nullable(),
    }),
  ),
  measures: z.array(
    z.strictObject({
      name: Member,
      agg: z.enum(['sum', 'count', 'count_distinct', 'min', 'max', 'average', 'median']),
      binding: Binding.nullable(),
      empty_result: z.enum(['null', 'zero']),
      agg_time_dimension: Member.nullable(),
    }),
  ),
  relationships: z.array(
    z.strictObject({
      name: Member,
      fields: z.array(FieldName).min(1),
      to: MemberRef,
      cardinality: z.enum(['many_to_one', 'one_to_one', 'one_to_many']),
      path: z.array(MemberRef),
    }),
  ),
  filters: z.array(
    z.strictObject({
      name: Member,
      conditions: z
        .array(
          z.strictObject({
            dimension: Member,
            binding: Binding,
            op: z.enum(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'is_null', 'is_not_null']),
            values: z.array(TypedLiteralSchema),
          }),
        )
        .min(1),
    }),
  ),
});

const Contract = z.strictObject({
  version: z.string().regex(VERSION_PATTERN),
  compatibility: z.enum(['backward', 'forward', 'full', 'none']),
});

const envelope = <K extends string, C extends z.ZodType>(kind: K, content: C) =>
  z.strictObject({
    profile: z.literal(PROFILE),
    resource: z.strictObject({ kind: z.literal(kind), id: Id }),
    contract: Contract,
    content,
  });

export const SourceProjectionSchema = envelope(
  'Source',
  z.strictObject({ fields: z.array(FieldPayloadSchema).min(1) }),
);
export const ModelProjectionSchema = envelope(
  'Model',
  z.strictObject({
    fields: z.array(FieldPayloadSchema).min(1),
    checks: z.array(CheckPayloadSchema),
    sql: SqlQuerySchema,
  }),
);
export const SemanticModelProjectionSchema = envelope('SemanticModel', SemanticContentSchema);

export const ProjectionSchema = z.union([
  SourceProjectionSchema,
  ModelProjectionSchema,
  SemanticModelProjectionSchema,
]);

export type TypedLiteralPayload = z.output<typeof TypedLiteralSchema>;
export type FieldPayload = z.output<typeof FieldPayloadSchema>;
export type CheckPayload = z.output<typeof CheckPayloadSchema>;
export type SourceContent = z.output<typeof SourceProjectionSchema>['content'];
export type ModelContent = z.output<typeof ModelProjectionSchema>['content'];
export type SemanticModelContent = z.output<typeof SemanticContentSchema>;
export type ProjectionPayload = z.output<typeof ProjectionSchema>;
export type ContractMetadataPayload = z.output<typeof Contract>;
