import { z } from 'zod';
import { RESOURCE_SCHEMAS, ResourceSchema } from '../authoring/schemas/resource.js';
import { ProjectionSchema } from '../projection/payload.js';
import type { OutputFile } from './write-tree.js';

/**
 * The JSON Schemas generated from the zod schemas (the single source): one per
 * resource kind and one for any resource (for editors validating YAML as it is
 * typed), and one for the leapview.contract/v1 projection. Keys are sorted
 * and the text ends with a newline, so regeneration is byte-stable.
 */
export function contractJsonSchemas(): OutputFile[] {
  const schemas: [string, string, z.ZodType, 'input' | 'output'][] = [
    ['resource.schema.json', 'sealkit contract resource (any kind)', ResourceSchema, 'input'],
    ['source.schema.json', 'sealkit contract Source', RESOURCE_SCHEMAS.Source, 'input'],
    ['model.schema.json', 'sealkit contract Model', RESOURCE_SCHEMAS.Model, 'input'],
    ['semantic-model.schema.json', 'sealkit contract SemanticModel', RESOURCE_SCHEMAS.SemanticModel, 'input'],
    ['dashboard.schema.json', 'sealkit contract Dashboard', RESOURCE_SCHEMAS.Dashboard, 'input'],
    ['projection.schema.json', 'leapview.contract/v1 projection', ProjectionSchema, 'output'],
  ];
  return schemas.map(([name, title, schema, io]) => {
    const generated = { title, ...z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) };
    return { path: [name], bytes: Buffer.from(`${JSON.stringify(sortKeys(generated), null, 2)}\n`, 'utf8') };
  });
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
