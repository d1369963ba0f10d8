import { z } from 'zod';
import { Line, Name, Prose, Reference, ResourceId, Tags } from './common.js';

const UsageSchema = z.strictObject({
  semantic_model: Reference.describe('A semantic model of the project, by id or name.'),
  measures: z.array(Name).max(256).default([]),
  dimensions: z.array(Name).max(256).default([]),
  filters: z.array(Name).max(256).default([]),
});

export const DashboardSchema = z
  .strictObject({
    kind: z.literal('Dashboard'),
    id: ResourceId,
    name: Name.describe('Project-local name.'),
    title: Line.optional(),
    description: Prose.optional(),
    tags: Tags.optional(),
    owner: z.string().min(1).max(256).optional().describe('Who maintains the dashboard.'),
    uses: z
      .array(UsageSchema)
      .min(1)
      .max(256)
      .describe('What the dashboard consumes: semantic models and their measures, dimensions and filters.'),
  })
  .describe('A dashboard: a consumer of semantic models. It has no contract projection.');
