import { isSha256Prefixed, type Sha256Prefixed } from '../../core/digest/index.js';
import {
  isJsonObject,
  JsonFloat,
  type JsonObject,
  type JsonValue,
  parseStrict,
} from '../../core/json/index.js';
import { Refusal, refuseAll } from '../../core/refusal/index.js';
import { pathProblem, pathSetProblemAt, unicodeTwins } from '../path/bundle-path.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { parseInstant } from './instant.js';
import type { ManifestFile, SourceManifest } from './types.js';

/** Bounds on a manifest: a manifest is small metadata, never data. */
export const MANIFEST_LIMITS = { maxBytes: 16 * 1024 * 1024, maxDepth: 16, maxFiles: 100_000 } as const;

/**
 * Reads manifest.json bytes into the normalized model. Unknown fields are
 * ignored (docs/distributor.md#source-bundles); every required field is checked, and every path passes the
 * path rules before any file of the bundle is opened. A refusal points into
 * the manifest (`files[3].path`; line and column for a JSON syntax error);
 * the caller adds the file's path (docs/distributor.md#reading-an-error).
 */
export function parseManifest(bytes: Uint8Array): SourceManifest {
  return manifestFromJson(parseManifestJson(bytes), 'lenient');
}

/**
 * manifest.json bytes as strict JSON, not yet checked as a manifest: the
 * first half of `parseManifest`, for a caller that wants the id of a
 * manifest whose other fields are refused (`manifestIdOf`).
 */
export function parseManifestJson(bytes: Uint8Array): JsonValue {
  if (bytes.length > MANIFEST_LIMITS.maxBytes)
    throw refuseDistributor('manifest_too_large', { role: 'manifest' });
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: MANIFEST_LIMITS.maxBytes, maxDepth: MANIFEST_LIMITS.maxDepth });
  } catch (error: unknown) {
    if (error instanceof Refusal && error.code === 'json_too_large') {
      throw refuseDistributor('manifest_too_large', { role: 'manifest' });
    }
    // The JSON parser's position, and what it found there: its hint, else its
    // code's fixed message (`an object holds the same key twice`), never data.
    const location = error instanceof Refusal ? error.location : undefined;
    const hint = error instanceof Refusal ? (error.hint ?? error.message) : undefined;
    throw refuseDistributor('manifest_not_json', {
      role: 'manifest',
      ...(location === undefined ? {} : { location }),
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return value;
}

/**
 * The id a parsed manifest names, when it is one `manifestFromJson` accepts,
 * whatever else is wrong with the manifest: a bundle refused for its files
 * or another field is still reported under its id (docs/distributor.md#outcomes).
 */
export function manifestIdOf(value: JsonValue): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const id = value.id;
  return typeof id === 'string' && idProblem(id) === undefined ? id : undefined;
}

type Fail = (code: DistributorRefusalCode, field?: string, pointer?: string, hint?: string) => Refusal;

/**
 * Why a bundle id is refused, or undefined when it is acceptable: a string
 * that is not empty after trimming white space, without C0/C1 control
 * characters or DEL (an id is printed in reports and logs, one per line).
 */
export function idProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'the id is a JSON string';
  if (id.trim().length === 0) return 'the id is empty, or only white space';
  for (const char of id) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f))
      return 'the id holds a control character (a tab, a line break, an escape...)';
  }
  return undefined;
}

/**
 * A strictness choice (docs/distributor.md#source-bundles): integers are
 * written as integers. JSON's grammar lets `1.0` and `15.0` stand for 1 and
 * 15, but sealkit refuses them rather than guess, as it refuses any other
 * rewriting of a producer's manifest; the hint says what to write.
 */
function integerHint(value: JsonValue | undefined): string | undefined {
  if (!(value instanceof JsonFloat) || !Number.isInteger(value.value)) return undefined;
  return `write ${value.value}, not ${value.lexeme}: sealkit reads an integer only when it is written as one`;
}

/**
 * The model from parsed JSON. `lenient` ignores unknown fields (a producer's
 * manifest.json) and reports every independent problem at once; `exact`
 * refuses unknown fields (the copy inside a destination state, which sealkit
 * wrote itself) with `destination_state_invalid`.
 */
export function manifestFromJson(value: JsonValue, mode: 'lenient' | 'exact'): SourceManifest {
  const fail: Fail = (code, field, pointer, hint) =>
    mode === 'exact'
      ? refuseDistributor('destination_state_invalid', { role: 'state' })
      : refuseDistributor(code, {
          role: 'manifest',
          ...(field === undefined ? {} : { field }),
          ...(pointer === undefined ? {} : { location: { pointer } }),
          ...(hint === undefined ? {} : { hint }),
        });
  if (!isJsonObject(value)) throw fail('manifest_not_object');
  if (mode === 'exact') requireExactKeys(value, ['schema_version', 'id', 'digest', 'created', 'files'], fail);
  const problems: Refusal[] = [];
  const check = (ok: boolean, code: DistributorRefusalCode, key: string, hint?: string): void => {
    if (!ok) problems.push(fail(code, key, key, hint));
  };
  check(
    value.schema_version === 1,
    'manifest_schema_version',
    'schema_version',
    integerHint(value.schema_version),
  );
  const id = value.id;
  const badId = idProblem(id);
  check(badId === undefined, 'manifest_id_invalid', 'id', badId);
  const digest = value.digest;
  check(typeof digest === 'string' && isSha256Prefixed(digest), 'manifest_digest_invalid', 'digest');
  const created = typeof value.created === 'string' ? parseInstant(value.created) : undefined;
  check(created !== undefined, 'manifest_created_invalid', 'created');
  const rawFiles = value.files;
  const filesOk =
    Array.isArray(rawFiles) && rawFiles.length > 0 && rawFiles.length <= MANIFEST_LIMITS.maxFiles;
  check(filesOk, 'manifest_files_invalid', 'files');
  const files: ManifestFile[] = [];
  if (filesOk) {
    for (const [index, entry] of (rawFiles as readonly JsonValue[]).entries()) {
      const file = fileFromJson(entry, index, mode, fail, problems);
      if (file !== undefined) files.push(file);
    }
  }
  if (problems.length === 0) {
    const setProblem = pathSetProblemAt(files.map((file) => file.path));
    if (setProblem !== undefined) problems.push(setRefusal(setProblem, files, fail, mode));
  }
  const [first] = problems;
  if (first !== undefined) throw mode === 'exact' ? first : refuseAll(problems);
  return {
    schema_version: 1,
    id: id as string,
    digest: digest as Sha256Prefixed,
    created: created as NonNullable<typeof created>,
    files,
  };
}

/**
 * A rule over the set of listed paths, at the later entry, the hint naming
 * the entry it repeats; Unicode twins shown marked, since the two look
 * alike on screen, with their forms in `details`.
 */
function setRefusal(
  problem: NonNullable<ReturnType<typeof pathSetProblemAt>>,
  files: readonly ManifestFile[],
  fail: Fail,
  mode: 'lenient' | 'exact',
): Refusal {
  const at = `files[${problem.index}].path`;
  const path = files[problem.index]?.path;
  const other = problem.other === undefined ? undefined : files[problem.other]?.path;
  if (mode === 'exact' || path === undefined || other === undefined || problem.other === undefined)
    return fail(problem.code, 'files[].path', at);
  if (problem.code !== 'path_unicode_twin')
    return fail(
      problem.code,
      'files[].path',
      at,
      `files[${problem.other}] lists the same path: list it once`,
    );
  const twins = unicodeTwins(path, other, `files[${problem.other}]`);
  return refuseDistributor('path_unicode_twin', {
    role: 'manifest',
    field: 'files[].path',
    location: { pointer: at },
    hint: `${twins.text} are one name on macOS and to many object-store clients: list one of them only, or rename one and write the manifest again`,
    details: twins.details,
  });
}

function fileFromJson(
  entry: JsonValue,
  index: number,
  mode: 'lenient' | 'exact',
  fail: Fail,
  problems: Refusal[],
): ManifestFile | undefined {
  const at = `files[${index}]`;
  if (!isJsonObject(entry)) {
    problems.push(fail('manifest_file_invalid', 'files', at));
    return undefined;
  }
  if (mode === 'exact') requireExactKeys(entry, ['path', 'sha256', 'size'], fail);
  const { path, sha256, size } = entry;
  const before = problems.length;
  let bundlePath: ManifestFile['path'] | undefined;
  if (typeof path !== 'string') problems.push(fail('manifest_file_invalid', 'files[].path', `${at}.path`));
  else {
    const problem = pathProblem(path);
    if (problem === undefined) bundlePath = path as ManifestFile['path'];
    else problems.push(fail(problem, 'files[].path', `${at}.path`));
  }
  if (typeof sha256 !== 'string' || !isSha256Prefixed(sha256))
    problems.push(fail('manifest_sha256_invalid', 'files[].sha256', `${at}.sha256`));
  if (!isSize(size))
    problems.push(fail('manifest_size_invalid', 'files[].size', `${at}.size`, integerHint(size)));
  if (problems.length > before || bundlePath === undefined) return undefined;
  return { path: bundlePath, sha256: sha256 as Sha256Prefixed, size: size as number };
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

/**
 * The model as a plain object in the documented field order
 * (docs/distributor.md#outputs-and-state; also embedded in the state).
 */
export function manifestJson(manifest: SourceManifest) {
  return {
    schema_version: manifest.schema_version,
    id: manifest.id,
    digest: manifest.digest,
    created: manifest.created,
    files: manifest.files.map((file) => ({ path: file.path, sha256: file.sha256, size: file.size })),
  };
}
