import type { ReferenceContext } from '../project/reference-context.js';

/** What content builders read besides the resource itself. */
export interface BuildContext {
  readonly references: ReferenceContext;
  /** DuckDB's parser JSON for a model SQL text (prepared in one batch), or undefined when it failed. */
  parsedSql(text: string): string | undefined;
}

/** Content of one resource and the resource ids it depends on (sorted, unique). */
export interface BuiltContent<C> {
  readonly content: C;
  readonly dependencies: readonly string[];
}
