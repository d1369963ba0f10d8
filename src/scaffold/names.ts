import type { CanonicalTableName } from './canonical.js';
import type { SourceId } from './source-id.js';

/**
 * Every name the scaffolder creates, derived from the source id alone, never
 * from evidence. The source id's pattern keeps each one a single path
 * component without '.' or '/', so none can leave its directory
 * (docs/scaffold.md#the-publication-protocol).
 */
export const STAGING_ROOT = '.scaffold-staging';
export const MANIFEST_NAME = '.scaffold-manifest.json';
/** The output's parent chain under the project: models/migration/generated. */
export const OUTPUT_PARENTS = ['models', 'migration', 'generated'] as const;

export function modelName(sourceId: SourceId, table: CanonicalTableName): string {
  return `silver_${sourceId}__${table}`;
}

export function modelFileName(sourceId: SourceId, table: CanonicalTableName): string {
  return `${modelName(sourceId, table)}.sql`;
}

export function propertiesFileName(sourceId: SourceId): string {
  return `_silver_${sourceId}__models.yml`;
}

export function bronzeSourceName(sourceId: SourceId): string {
  return `migration_bronze_${sourceId}`;
}

export function lockFileName(sourceId: SourceId): string {
  return `${sourceId}.lock`;
}

/** Project-relative paths: the only paths a result, a manifest or a log line may hold. */
export function outputPath(sourceId: SourceId): string {
  return `${OUTPUT_PARENTS.join('/')}/${sourceId}`;
}

export function stagingPath(sourceId: SourceId): string {
  return `${STAGING_ROOT}/${sourceId}`;
}
