import { z } from 'zod';
import {
  ContractMetadata,
  FieldSchema,
  Name,
  Prose,
  ResourceId,
  RuntimeState,
  Tags,
  TargetConfig,
} from './common.js';

export const SourceSchema = z
  .strictObject({
    kind: z.literal('Source'),
    id: ResourceId,
    name: Name.describe('Project-local name; SQL and references may use it instead of the id.'),
    contract: ContractMetadata.optional(),
    description: Prose.optional(),
    tags: Tags.optional(),
    fields: z.array(FieldSchema).min(1).max(2000).describe('The fields the source provides.'),
    location: z
      .strictObject({
        catalog: z.string().min(1).max(256).optional(),
        schema: z.string().min(1).max(256).optional(),
        table: z.string().min(1).max(256).optional(),
        uri: z.string().min(1).max(2048).optional(),
      })
      .optional()
      .describe('Where the data physically lives; not part of contract identity.'),
    credentials: z
      .strictObject({
        secret_ref: z
          .string()
          .min(1)
          .max(256)
          .describe('The name of a secret in your secret store, never the secret.'),
      })
      .optional()
      .describe('How to authenticate; not part of contract identity.'),
    target: TargetConfig.optional(),
    runtime: RuntimeState.optional(),
  })
  .describe('A source: data that enters the platform, with its field contract.');
