import { z } from 'zod';
import { DashboardSchema } from './dashboard.js';
import { ModelSchema } from './model.js';
import { SemanticModelSchema } from './semantic-model.js';
import { SourceSchema } from './source.js';

export const RESOURCE_KINDS = ['Source', 'Model', 'SemanticModel', 'Dashboard'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Kinds that carry a leapview.contract/v1 projection. */
export const CONTRACT_KINDS = ['Source', 'Model', 'SemanticModel'] as const;
export type ContractKind = (typeof CONTRACT_KINDS)[number];

export const RESOURCE_SCHEMAS = {
  Source: SourceSchema,
  Model: ModelSchema,
  SemanticModel: SemanticModelSchema,
  Dashboard: DashboardSchema,
} as const;

export const ResourceSchema = z.discriminatedUnion('kind', [
  SourceSchema,
  ModelSchema,
  SemanticModelSchema,
  DashboardSchema,
]);

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

export type SourceResource = DeepReadonly<z.output<typeof SourceSchema>>;
export type ModelResource = DeepReadonly<z.output<typeof ModelSchema>>;
export type SemanticModelResource = DeepReadonly<z.output<typeof SemanticModelSchema>>;
export type DashboardResource = DeepReadonly<z.output<typeof DashboardSchema>>;
export type AuthoredResource = SourceResource | ModelResource | SemanticModelResource | DashboardResource;
export type AuthoredField = SourceResource['fields'][number];
export type AuthoredCheck = ModelResource['checks'][number];

export const ROLE_OF_KIND = {
  Source: 'source',
  Model: 'model',
  SemanticModel: 'semantic_model',
  Dashboard: 'dashboard',
} as const;
