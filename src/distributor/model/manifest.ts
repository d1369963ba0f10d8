import { isSha256Prefixed, type Sha256Prefixed } from '../../core/digest/index.js';
import { type PathSegment, pointerOf } from '../../core/input/index.js';
import {
  isJsonObject,
  JsonFloat,
  type JsonObject,
  type JsonValue,
  parseStrict,
} from '../../core/json/index.js';
import { editDistance, nearest, Refusal, refuseAll } from '../../core/refusal/index.js';
import {
  type PathSetProblem,
  pathProblem,
  pathSetProblemsAt,
  twinShown,
  unicodeTwins,
} from '../path/bundle-path.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { parseInstant } from './instant.js';
import { type JsonPlaces, jsonPlaces, type Place } from './json-places.js';
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
  return manifestFromJson(parseManifestJson(bytes), 'lenient', { places: jsonPlaces(bytes) });
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
 * What is wrong in a JSON document read as a closed shape: a key the shape
 * does not have, a key it lacks (`path` is the object's), or a value out of
 * its form (`path` is the value's). Paths are relative to where the reader
 * was pointed (`ManifestReading.at`).
 */
export type DocumentFault =
  | { readonly kind: 'unknown'; readonly path: readonly PathSegment[]; readonly key: string }
  | { readonly kind: 'missing'; readonly path: readonly PathSegment[]; readonly key: string }
  | { readonly kind: 'value'; readonly path: readonly PathSegment[]; readonly why?: string };

/**
 * One line saying what a fault is and where, for a document sealkit wrote
 * itself and reads strictly (a destination state): the key, its key path
 * and, when the document's places are known, its line and column.
 */
export function describeFault(fault: DocumentFault, places: JsonPlaces | undefined): string {
  const where = (place: Place | undefined): string =>
    place === undefined ? '' : ` at line ${place.line}, column ${place.column}`;
  const inside = fault.path.length === 0 ? '' : ` in ${pointerOf(fault.path)}`;
  switch (fault.kind) {
    case 'unknown':
      return `unknown key '${fault.key}'${inside}${where(places?.key([...fault.path, fault.key]))}`;
    case 'missing':
      return `no key '${fault.key}'${inside}${where(places?.value(fault.path))}`;
    case 'value':
      return `${fault.path.length === 0 ? 'the document' : pointerOf(fault.path)}${where(places?.value(fault.path))} ${fault.why ?? 'is not what sealkit writes there'}`;
  }
}

/** Where a manifest lies in the document read, and the document's places. */
export interface ManifestReading {
  /** The manifest's key path in its document: `[]` for manifest.json, `['source', 'manifest']` in a state. */
  readonly at?: readonly PathSegment[];
  /** Where each key and value is written, for line and column (absent: key paths only). */
  readonly places?: JsonPlaces;
}

type Fail = (
  code: DistributorRefusalCode,
  fault: DocumentFault,
  options?: { readonly field?: string; readonly hint?: string },
) => Refusal;

const MANIFEST_KEYS = ['schema_version', 'id', 'digest', 'created', 'files'] as const;
const FILE_KEYS = ['path', 'sha256', 'size'] as const;

/** What to add for a missing key, by its name (`files[]` entries included). */
const ADD: { readonly [key: string]: string } = {
  schema_version: 'add "schema_version": 1',
  id: 'add "id": a string naming the bundle, such as "weather.2026-05-30"',
  digest:
    'add "digest": the bundle digest, "sha256:" and 64 lowercase hex digits (sealkit distribute manifest computes it)',
  created: 'add "created": an RFC 3339 timestamp such as "2026-05-30T11:10:00Z"',
  files: 'add "files": a list with one {"path", "sha256", "size"} per file',
  path: 'add "path": the file\'s path in the bundle, such as "data/days.csv"',
  sha256: 'add "sha256": "sha256:" and the 64 lowercase hex digits of the file\'s SHA-256',
  size: 'add "size": the file\'s size in bytes, an integer',
};

const SHA256_FORM = 'write "sha256:" and 64 lowercase hex digits';
const CREATED_FORM =
  'write an RFC 3339 timestamp with its time zone, such as "2026-05-30T11:10:00Z" or "2026-05-30T13:10:00+02:00"';

/**
 * The key a producer most likely meant for `missing` among the keys of the
 * same object the shape does not have (`ident` for `id`, `creatd` for
 * `created`): the nearest by the usual typo rule, else one that begins
 * with the other (`ident`, `identifier` for `id`), which a missing key
 * makes likely enough to ask.
 */
export function meantFor(missing: string, unknown: readonly string[]): string | undefined {
  const near = unknown.filter((key) => nearest(key, [missing]) !== undefined);
  const prefixed = unknown.filter(
    (key) =>
      key.length >= 2 &&
      (key.toLowerCase().startsWith(missing.toLowerCase()) ||
        missing.toLowerCase().startsWith(key.toLowerCase())),
  );
  const [best] = [...near, ...prefixed].sort(
    (a, b) => editDistance(a, missing) - editDistance(b, missing) || unknown.indexOf(a) - unknown.indexOf(b),
  );
  return best;
}

/**
 * The model from parsed JSON. `lenient` ignores unknown fields (a producer's
 * manifest.json) and reports every independent problem at once, each at
 * its key path and, given the document's places, its line and column; a
 * missing key is placed at the unknown key of the same object it was most
 * likely misspelt as (`did you mean 'id'?`), else at the object. `exact`
 * refuses unknown fields (the copy inside a destination state, which
 * sealkit wrote itself) with `destination_state_invalid`, its hint naming
 * the first fault (`describeFault`).
 */
export function manifestFromJson(
  value: JsonValue,
  mode: 'lenient' | 'exact',
  reading: ManifestReading = {},
): SourceManifest {
  const base = reading.at ?? [];
  const places = reading.places;
  const fail: Fail = (code, fault, options = {}) => {
    const absolute = { ...fault, path: [...base, ...fault.path] } as DocumentFault;
    if (mode === 'exact')
      return refuseDistributor('destination_state_invalid', {
        role: 'state',
        hint: describeFault(absolute, places),
      });
    const pointer =
      absolute.kind === 'value' ? pointerOf(absolute.path) : pointerOf([...absolute.path, absolute.key]);
    let place = places?.value(absolute.path);
    let hint = options.hint;
    if (absolute.kind === 'missing') {
      const known: readonly string[] = fault.path.length === 0 ? MANIFEST_KEYS : FILE_KEYS;
      const unknown = Object.keys(objectAt(value, fault.path) ?? {}).filter((key) => !known.includes(key));
      const meant = meantFor(absolute.key, unknown);
      const from = fault.path.length === 0 ? '' : ` from ${pointerOf(fault.path)}`;
      if (meant !== undefined) place = places?.key([...absolute.path, meant]) ?? place;
      hint =
        meant === undefined
          ? `'${absolute.key}' is missing${from}: ${ADD[absolute.key] ?? 'add it'}`
          : `'${absolute.key}' is missing${from}, and '${meant}' is not a key a manifest has: did you mean '${absolute.key}'?`;
    }
    return refuseDistributor(code, {
      role: 'manifest',
      ...(options.field === undefined ? {} : { field: options.field }),
      location: { pointer, ...(place === undefined ? {} : place) },
      ...(hint === undefined ? {} : { hint }),
    });
  };
  if (!isJsonObject(value)) throw fail('manifest_not_object', { kind: 'value', path: [] });
  if (mode === 'exact') exactKeys(value, [], MANIFEST_KEYS, [], fail);
  const problems: Refusal[] = [];
  /** A top-level key: missing, or present and refused by `ok`. */
  const check = (
    key: (typeof MANIFEST_KEYS)[number],
    ok: boolean,
    code: DistributorRefusalCode,
    hint?: string,
  ): void => {
    if (ok) return;
    problems.push(
      key in value
        ? fail(code, { kind: 'value', path: [key] }, { field: key, ...(hint === undefined ? {} : { hint }) })
        : fail(code, { kind: 'missing', path: [], key }, { field: key }),
    );
  };
  check(
    'schema_version',
    value.schema_version === 1,
    'manifest_schema_version',
    integerHint(value.schema_version) ?? 'this sealkit reads "schema_version": 1',
  );
  const id = value.id;
  const badId = idProblem(id);
  check('id', badId === undefined, 'manifest_id_invalid', badId);
  const digest = value.digest;
  check(
    'digest',
    typeof digest === 'string' && isSha256Prefixed(digest),
    'manifest_digest_invalid',
    SHA256_FORM,
  );
  const created = typeof value.created === 'string' ? parseInstant(value.created) : undefined;
  check('created', created !== undefined, 'manifest_created_invalid', CREATED_FORM);
  const rawFiles = value.files;
  const filesOk =
    Array.isArray(rawFiles) && rawFiles.length > 0 && rawFiles.length <= MANIFEST_LIMITS.maxFiles;
  check(
    'files',
    filesOk,
    'manifest_files_invalid',
    !Array.isArray(rawFiles)
      ? 'files is a list with one {"path", "sha256", "size"} per file'
      : rawFiles.length === 0
        ? 'the list is empty: a manifest lists at least one file'
        : `it lists ${rawFiles.length} files; a manifest lists at most ${MANIFEST_LIMITS.maxFiles}`,
  );
  const files: ManifestFile[] = [];
  if (filesOk) {
    for (const [index, entry] of (rawFiles as readonly JsonValue[]).entries()) {
      const file = fileFromJson(entry, index, mode, fail, problems);
      if (file !== undefined) files.push(file);
    }
  }
  // The set rules over every path that passed the path rules, whatever else
  // is wrong, so that one round of fixes clears every repeat, twin and clash.
  if (filesOk) {
    const listed = listedPaths(rawFiles as readonly JsonValue[]);
    const inListOrder = [...pathSetProblemsAt(listed.map((entry) => entry.path))].sort(
      (a, b) => a.index - b.index,
    );
    for (const problem of inListOrder) problems.push(setRefusal(problem, listed, fail));
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

/** The object at `path` inside `value`, if there is one. */
function objectAt(value: JsonValue, path: readonly PathSegment[]): JsonObject | undefined {
  let node: JsonValue | undefined = value;
  for (const segment of path) {
    if (typeof segment === 'number') node = Array.isArray(node) ? node[segment] : undefined;
    else node = node !== null && isJsonObject(node as JsonValue) ? (node as JsonObject)[segment] : undefined;
    if (node === undefined) return undefined;
  }
  return node !== null && isJsonObject(node) ? node : undefined;
}

// What to do about a listed path the path rules refuse
// (docs/distributor.md#path-rules). A name a file really has can be renamed
// or left out; a path no folder listing gives (empty, absolute, not in
// normal form, `..`) was written by the producer, and the digest covers it,
// so the manifest is written again rather than edited.
const LEAVE_OUT =
  'rename the file, or leave it out when writing the manifest (sealkit distribute manifest --exclude)';
const WRITE_AGAIN =
  'correct the producer that wrote it, or write the manifest again with sealkit distribute manifest (the digest covers every path)';

/** The help for a listed path that breaks a path rule, with the normal form where there is one. */
function listedPathHint(code: DistributorRefusalCode, path: string): string | undefined {
  const normal = path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
  const write = normal !== '' && pathProblem(normal) === undefined ? ` (here '${normal}')` : '';
  switch (code) {
    case 'path_empty':
      return `a listed path names a file under the bundle folder, and this one is empty: ${WRITE_AGAIN}`;
    case 'path_absolute':
      return `a listed path is relative to the bundle folder, without a leading '/'${write}: ${WRITE_AGAIN}`;
    case 'path_not_normalized':
      return `a listed path is in normal form, without an empty or '.' segment or a trailing '/'${write}: ${WRITE_AGAIN}`;
    case 'path_dotdot':
      return `a '..' segment would name a file outside the bundle folder, or one file by two paths: list each file by its path under the bundle folder; ${WRITE_AGAIN}`;
    case 'path_control_char':
      return `the path holds a control character, which reports and logs would print raw: ${LEAVE_OUT}`;
    case 'path_backslash':
      return `the path holds a backslash, a folder separator on Windows and to many URL handlers: ${LEAVE_OUT}`;
    case 'path_too_long':
      return `a name is at most 255 bytes and a path at most 4,096 (UTF-8): shorten the file's name, or leave it out when writing the manifest (sealkit distribute manifest --exclude)`;
    case 'path_reserved':
      return path === 'manifest.json'
        ? `a manifest never lists itself: ${WRITE_AGAIN}`
        : `manifest.json and names beginning with .distributor are sealkit's own: ${LEAVE_OUT}`;
    default:
      return undefined;
  }
}

/** The paths of `files[]` that pass the path rules, each with its index in the list. */
function listedPaths(rawFiles: readonly JsonValue[]): { readonly path: string; readonly index: number }[] {
  const listed: { path: string; index: number }[] = [];
  for (const [index, entry] of rawFiles.entries()) {
    const path = isJsonObject(entry) ? entry.path : undefined;
    if (typeof path === 'string' && pathProblem(path) === undefined) listed.push({ path, index });
  }
  return listed;
}

/**
 * A rule over the set of listed paths, at the later entry, the hint naming
 * both paths and the entry it repeats or runs through; Unicode twins shown
 * marked, since the two look alike on screen, with their forms in `details`.
 */
function setRefusal(
  problem: PathSetProblem,
  listed: readonly { readonly path: string; readonly index: number }[],
  fail: Fail,
): Refusal {
  const entry = listed[problem.index];
  const other = listed[problem.other ?? problem.file ?? -1];
  const at: readonly PathSegment[] = ['files', entry?.index ?? problem.index, 'path'];
  const plain = fail(problem.code, { kind: 'value', path: at }, { field: 'files[].path' });
  if (entry === undefined || other === undefined || plain.code !== problem.code) return plain;
  if (problem.code === 'path_duplicate')
    return plain.at({}, `files[${other.index}] lists the same path ('${entry.path}'): list it once`);
  if (problem.code === 'path_file_dir_clash')
    return plain.at(
      {},
      `'${twinShown(entry.path)}' runs through '${twinShown(other.path)}', which files[${other.index}] lists as a file: a name is a file or a folder, not both; list only what the bundle folder holds, or rename one and write the manifest again`,
    );
  const twins = unicodeTwins(entry.path, other.path, `files[${other.index}]`);
  return refuseDistributor('path_unicode_twin', {
    role: 'manifest',
    field: 'files[].path',
    ...(plain.location === undefined ? {} : { location: plain.location }),
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
  const at: readonly PathSegment[] = ['files', index];
  if (!isJsonObject(entry)) {
    problems.push(
      fail(
        'manifest_file_invalid',
        { kind: 'value', path: at },
        { field: 'files', hint: 'each entry is an object {"path", "sha256", "size"}' },
      ),
    );
    return undefined;
  }
  if (mode === 'exact') exactKeys(entry, at, FILE_KEYS, [], fail);
  const { path, sha256, size } = entry;
  const before = problems.length;
  /** A key of this entry: missing, or present and refused. */
  const refuse = (key: (typeof FILE_KEYS)[number], code: DistributorRefusalCode, hint?: string): void => {
    problems.push(
      key in entry
        ? fail(
            code,
            { kind: 'value', path: [...at, key] },
            { field: `files[].${key}`, ...(hint === undefined ? {} : { hint }) },
          )
        : fail(code, { kind: 'missing', path: at, key }, { field: `files[].${key}` }),
    );
  };
  let bundlePath: ManifestFile['path'] | undefined;
  if (typeof path !== 'string') refuse('path', 'manifest_file_invalid', 'a path is a JSON string');
  else {
    const problem = pathProblem(path);
    if (problem === undefined) bundlePath = path as ManifestFile['path'];
    else refuse('path', problem, listedPathHint(problem, path));
  }
  if (typeof sha256 !== 'string' || !isSha256Prefixed(sha256))
    refuse('sha256', 'manifest_sha256_invalid', SHA256_FORM);
  if (!isSize(size))
    refuse(
      'size',
      'manifest_size_invalid',
      integerHint(size) ?? 'a size is a whole number of bytes, 0 or more',
    );
  if (problems.length > before || bundlePath === undefined) return undefined;
  return { path: bundlePath, sha256: sha256 as Sha256Prefixed, size: size as number };
}

/**
 * A closed object of a document sealkit wrote: every key one of `keys` or
 * `optional`, every one of `keys` present; the first fault otherwise.
 */
export function exactKeys(
  value: JsonObject,
  path: readonly PathSegment[],
  keys: readonly string[],
  optional: readonly string[],
  fail: Fail,
): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key) && !optional.includes(key))
      throw fail('destination_state_invalid', { kind: 'unknown', path, key });
  }
  for (const key of keys)
    if (!(key in value)) throw fail('destination_state_invalid', { kind: 'missing', path, key });
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
