import type {
  CheckPayload,
  FieldPayload,
  ModelContent,
  ProjectionPayload,
  SemanticModelContent,
  SourceContent,
  TypedLiteralPayload,
} from '../projection/payload.js';

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** Read-only shapes of the decoded projection parts the comparisons walk. */
export type FieldView = DeepReadonly<FieldPayload>;
export type CheckView = DeepReadonly<CheckPayload>;
export type LiteralView = DeepReadonly<TypedLiteralPayload>;
export type SemanticView = DeepReadonly<SemanticModelContent>;
export type PayloadView = DeepReadonly<ProjectionPayload>;
export type SourceView = DeepReadonly<SourceContent>;
export type ModelView = DeepReadonly<ModelContent>;
