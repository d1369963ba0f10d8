import { z } from 'zod';
import {
  ContractMetadata,
  FieldName,
  FieldSchema,
  Literal,
  Name,
  Prose,
  ResourceId,
  RuntimeState,
  Tags,
  TargetConfig,
} from './common.js';

const Severity = z
  .enum(['error', 'warn'])
  .default('error')
  .describe('What a failing check does: error blocks, warn reports.');

export const CheckSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('unique'),
    fields: z
      .array(FieldName)
      .min(1)
      .max(64)
      .describe('A set of output fields whose combined values are unique; order does not matter.'),
    severity: Severity,
    description: Prose.optional(),
  }),
  z.strictObject({
    type: z.literal('not_null'),
    field: FieldName,
    severity: Severity,
    description: Prose.optional(),
  }),
  z.strictObject({
    type: z.literal('accepted_values'),
    field: FieldName,
    values: z
      .array(Literal)
      .min(1)
      .max(1000)
      .describe('The set of values the field may hold, typed through the field.'),
    severity: Severity,
    description: Prose.optional(),
  }),
]);

export const ModelSchema = z
  .strictObject({
    kind: z.literal('Model'),
    id: ResourceId,
    name: Name.describe('Project-local name; SQL and references may use it instead of the id.'),
    contract: ContractMetadata.optional(),
    description: Prose.optional(),
    tags: Tags.optional(),
    sql: z
      .string()
      .min(1)
      .max(65_536)
      .describe(
        'One SELECT statement (DuckDB dialect). Tables are sources or models of the project, by id or name.',
      ),
    fields: z.array(FieldSchema).min(1).max(2000).describe('The output fields of the model.'),
    checks: z.array(CheckSchema).max(1000).default([]).describe('Data checks on the output fields.'),
    target: TargetConfig.optional(),
    runtime: RuntimeState.optional(),
  })
  .describe('A model: a SQL transformation with an output field contract and checks.');
