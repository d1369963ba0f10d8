import { isSha256Prefixed, type Sha256Prefixed } from '../../core/digest/index.js';
import { isJsonObject, type JsonObject, type JsonValue, parseStrict } from '../../core/json/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { pathSetProblem, toBundlePath } from '../path/bundle-path.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { parseInstant } from './instant.js';
import type { ManifestFile, SourceManifest } from './types.js';

/** Bounds on a manifest: a manifest is small metadata, never data. */
export const MANIFEST_LIMITS = { maxBytes: 16 * 1024 * 1024, maxDepth: 16, maxFiles: 100_000 } as const;

/**
 * Reads manifest.json bytes into the normalized model. Unknown fields are
 * ignored (seed); every required field is checked, and every path passes the
 * path rules before any file of the bundle is opened.
 */
export function parseManifest(bytes: Uint8Array): SourceManifest {
  if (bytes.length > MANIFEST_LIMITS.maxBytes)
    throw refuseDistributor('manifest_too_large', { role: 'manifest' });
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: MANIFEST_LIMITS.maxBytes, maxDepth: MANIFEST_LIMITS.maxDepth });
  } catch (error: unknown) {
    if (error instanceof Refusal && error.code === 'json_too_large') {
      throw refuseDistributor('manifest_too_large', { role: 'manifest' });
    }
    throw refuseDistributor('manifest_not_json', { role: 'manifest' });
  }
  return manifestFromJson(value, 'lenient');
}

/**
 * The model from parsed JSON. `lenient` ignores unknown fields (a producer's
 * manifest.json); `exact` refuses them (the copy inside a destination state,
 * which sealkit wrote itself) with `destination_state_invalid`.
 */
export function manifestFromJson(value: JsonValue, mode: 'lenient' | 'exact'): SourceManifest {
  const fail = (code: DistributorRefusalCode, field?: string): Refusal =>
    mode === 'exact'
      ? refuseDistributor('destination_state_invalid', { role: 'state' })
      : refuseDistributor(code, field === undefined ? { role: 'manifest' } : { role: 'manifest', field });
  if (!isJsonObject(value)) throw fail('manifest_not_object');
  if (mode === 'exact') requireExactKeys(value, ['schema_version', 'id', 'digest', 'created', 'files'], fail);
  if (value.schema_version !== 1) throw fail('manifest_schema_version', 'schema_version');
  const id = value.id;
  if (typeof id !== 'string' || id.length === 0) throw fail('manifest_id_invalid', 'id');
  const digest = value.digest;
  if (typeof digest !== 'string' || !isSha256Prefixed(digest))
    throw fail('manifest_digest_invalid', 'digest');
  const created = typeof value.created === 'string' ? parseInstant(value.created) : undefined;
  if (created === undefined) throw fail('manifest_created_invalid', 'created');
  const rawFiles = value.files;
  if (!Array.isArray(rawFiles) || rawFiles.length === 0 || rawFiles.length > MANIFEST_LIMITS.maxFiles) {
    throw fail('manifest_files_invalid', 'files');
  }
  const files = (rawFiles as readonly JsonValue[]).map((entry) => fileFromJson(entry, mode, fail));
  const setProblem = pathSetProblem(files.map((file) => file.path));
  if (setProblem !== undefined) throw fail(setProblem, 'files[].path');
  return { schema_version: 1, id, digest, created, files };
}

function fileFromJson(
  entry: JsonValue,
  mode: 'lenient' | 'exact',
  fail: (code: DistributorRefusalCode, field?: string) => Refusal,
): ManifestFile {
  if (!isJsonObject(entry)) throw fail('manifest_file_invalid', 'files');
  if (mode === 'exact') requireExactKeys(entry, ['path', 'sha256', 'size'], fail);
  const { path, sha256, size } = entry;
  if (typeof path !== 'string') throw fail('manifest_file_invalid', 'files[].path');
  let bundlePath: ManifestFile['path'];
  try {
    bundlePath = toBundlePath(path);
  } catch (error: unknown) {
    if (error instanceof Refusal) throw fail(error.code as DistributorRefusalCode, 'files[].path');
    throw error;
  }
  if (typeof sha256 !== 'string' || !isSha256Prefixed(sha256))
    throw fail('manifest_sha256_invalid', 'files[].sha256');
  if (!isSize(size)) throw fail('manifest_size_invalid', 'files[].size');
  return { path: bundlePath, sha256: sha256 as Sha256Prefixed, size };
}

export function isSize(value: JsonValue | undefined): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function requireExactKeys(
  value: JsonObject,
  keys: readonly string[],
  fail: (code: DistributorRefusalCode) => Refusal,
  optional: readonly string[] = [],
): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key) && !optional.includes(key)) throw fail('destination_state_invalid');
  }
  for (const key of keys) if (!(key in value)) throw fail('destination_state_invalid');
}

/** The manifest.json bytes sealkit writes (`distribute manifest`): fixed key order, 2-space indent, LF. */
export function serializeManifest(manifest: SourceManifest): string {
  return `${JSON.stringify(manifestJson(manifest), null, 2)}\n`;
}

/** The model as a plain object in the seed's field order (also embedded in the state). */
export function manifestJson(manifest: SourceManifest) {
  return {
    schema_version: manifest.schema_version,
    id: manifest.id,
    digest: manifest.digest,
    created: manifest.created,
    files: manifest.files.map((file) => ({ path: file.path, sha256: file.sha256, size: file.size })),
  };
}
