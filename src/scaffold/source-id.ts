declare const sourceIdBrand: unique symbol;

/**
 * The operator's generic, non-sensitive alias for one source (docs/scaffold.md#usage): it names
 * the output directory and namespaces every generated model, source and file.
 * Never a client, customer, account or source-system name.
 */
export type SourceId = string & { readonly [sourceIdBrand]: true };

/** 40 characters at most: `migration_bronze_` + 40 stays within every warehouse's identifier limit. */
const SOURCE_ID = /^[a-z][a-z0-9_]{0,39}$/;

export function isSourceId(value: unknown): value is SourceId {
  return typeof value === 'string' && SOURCE_ID.test(value);
}
