import { isSha256Prefixed, type Sha256Prefixed } from '../../core/digest/index.js';
import type { PathSegment } from '../../core/input/index.js';
import { isJsonObject, type JsonObject, type JsonValue, parseStrict } from '../../core/json/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { pathProblem, pathSetProblemAt } from '../path/bundle-path.js';
import { refuseDistributor } from '../refusals.js';
import { parseInstant } from './instant.js';
import { jsonPlaces } from './json-places.js';
import {
  type DocumentFault,
  describeFault,
  exactKeys,
  isSize,
  manifestFromJson,
  manifestJson,
} from './manifest.js';
import type { BundlePath, DestinationState, OutputRecord } from './types.js';

/** The state file's name at every destination bundle path. */
export const STATE_FILE = '.distributor.json';
/** A state is metadata about one bundle; anything larger was not written by sealkit. */
export const STATE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Reads `.distributor.json` strictly: the documented shape and nothing else
 * (docs/distributor.md#outputs-and-state)
 * (sealkit wrote it, so an unknown field means someone else did). Every
 * failure is `destination_state_invalid`, its hint naming the first fault
 * and where it is (`unknown key 'note' at line 40, column 3`), never a value.
 */
export function parseState(bytes: Uint8Array): DestinationState {
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: STATE_MAX_BYTES, maxDepth: 16 });
  } catch (error: unknown) {
    throw stateInvalid(notJson(error));
  }
  const places = jsonPlaces(bytes);
  const fail = (fault: DocumentFault): Refusal => stateInvalid(describeFault(fault, places));
  const exact = (
    object: JsonObject,
    path: readonly PathSegment[],
    keys: readonly string[],
    optional: readonly string[] = [],
  ): void => exactKeys(object, path, keys, optional, (_code, fault) => fail(fault));
  const bad = (path: readonly PathSegment[], why?: string): Refusal =>
    fail({ kind: 'value', path, ...(why === undefined ? {} : { why }) });
  if (!isJsonObject(value)) throw bad([], 'is not a JSON object');
  exact(
    value,
    [],
    ['schema_version', 'pipeline_id', 'destination_id', 'published_at', 'source', 'outputs'],
    ['distributor_version'],
  );
  if (value.schema_version !== 1) throw bad(['schema_version'], 'is not 1');
  const version = 'distributor_version' in value ? value.distributor_version : '';
  const { pipeline_id, destination_id } = value;
  if (typeof version !== 'string') throw bad(['distributor_version'], 'is not a string');
  if (typeof pipeline_id !== 'string') throw bad(['pipeline_id'], 'is not a string');
  if (typeof destination_id !== 'string') throw bad(['destination_id'], 'is not a string');
  const publishedAt = typeof value.published_at === 'string' ? parseInstant(value.published_at) : undefined;
  if (publishedAt === undefined) throw bad(['published_at'], 'is not an RFC 3339 timestamp');
  const source = value.source;
  if (source === undefined || !isJsonObject(source)) throw bad(['source'], 'is not a JSON object');
  exact(source, ['source'], ['manifest']);
  const manifest = manifestFromJson(source.manifest ?? null, 'exact', { at: ['source', 'manifest'], places });
  const rawOutputs = value.outputs;
  if (!Array.isArray(rawOutputs)) throw bad(['outputs'], 'is not a list');
  const outputs = (rawOutputs as readonly JsonValue[]).map((output, index) =>
    outputFromJson(output, ['outputs', index], exact, bad),
  );
  const clash = pathSetProblemAt(outputs.map((output) => output.path));
  if (clash !== undefined)
    throw bad(
      ['outputs', clash.index, 'path'],
      clash.other === undefined ? 'clashes with another output' : `repeats outputs[${clash.other}].path`,
    );
  // A copy is its source file's bytes: one whose digest or size is not the
  // manifest's record of that file was edited by hand. Read as anything
  // else, a plain run would republish it and --checksum refuse it: the
  // same state, opposite verdicts (docs/distributor.md#outputs-and-state).
  const recorded = new Map(manifest.files.map((file) => [file.path as string, file]));
  for (const [index, output] of outputs.entries()) {
    const file = recorded.get(output.source_path);
    if (file === undefined) throw bad(['outputs', index, 'source_path'], 'names no file of source.manifest');
    if (output.kind !== 'source') continue;
    if (output.path !== output.source_path)
      throw bad(['outputs', index, 'path'], 'is not its source_path, as a copy is');
    if (output.sha256 !== file.sha256)
      throw bad(
        ['outputs', index, 'sha256'],
        'is not the SHA-256 source.manifest records for its source_path',
      );
    if (output.size !== file.size)
      throw bad(['outputs', index, 'size'], 'is not the size source.manifest records for its source_path');
  }
  return {
    schema_version: 1,
    distributor_version: version,
    pipeline_id,
    destination_id,
    published_at: publishedAt,
    source: { manifest },
    outputs,
  };
}

function stateInvalid(hint: string): Refusal {
  return refuseDistributor('destination_state_invalid', { role: 'state', hint });
}

/** What the strict parser found, where: its position and its fixed text, never the document's bytes. */
function notJson(error: unknown): string {
  if (!(error instanceof Refusal)) return 'not strict JSON';
  if (error.code === 'json_too_large') return 'larger than a state sealkit writes';
  const { line, column } = error.location ?? {};
  const where = line === undefined || column === undefined ? '' : ` at line ${line}, column ${column}`;
  return `not strict JSON${where} (${error.hint ?? error.message})`;
}

function outputFromJson(
  value: JsonValue,
  at: readonly PathSegment[],
  exact: (
    object: JsonObject,
    path: readonly PathSegment[],
    keys: readonly string[],
    optional?: readonly string[],
  ) => void,
  bad: (path: readonly PathSegment[], why?: string) => Refusal,
): OutputRecord {
  if (!isJsonObject(value)) throw bad(at, 'is not a JSON object');
  exact(value, at, ['path', 'kind', 'source_path', 'sha256', 'size'], ['transform']);
  const { path, kind, source_path, sha256, size, transform } = value;
  if (typeof path !== 'string' || pathProblem(path) !== undefined) throw bad([...at, 'path']);
  if (typeof source_path !== 'string' || pathProblem(source_path) !== undefined)
    throw bad([...at, 'source_path']);
  if (typeof sha256 !== 'string' || !isSha256Prefixed(sha256)) throw bad([...at, 'sha256']);
  if (!isSize(size)) throw bad([...at, 'size']);
  const base = {
    path: path as BundlePath,
    source_path: source_path as BundlePath,
    sha256: sha256 as Sha256Prefixed,
    size,
  };
  if (kind === 'source' && (transform === undefined || transform === '')) {
    return { path: base.path, kind, source_path: base.source_path, sha256: base.sha256, size };
  }
  if (kind === 'generated' && transform === 'markdown_to_html') {
    return { path: base.path, kind, source_path: base.source_path, transform, sha256: base.sha256, size };
  }
  throw bad(kind === 'source' || kind === 'generated' ? [...at, 'transform'] : [...at, 'kind']);
}

/**
 * The bytes of `.distributor.json`: the documented field order
 * (docs/distributor.md#outputs-and-state), 2-space indent,
 * LF, outputs in the order given (the planner sorts them by UTF-8 path).
 */
export function serializeState(state: DestinationState): string {
  const document = {
    schema_version: state.schema_version,
    distributor_version: state.distributor_version,
    pipeline_id: state.pipeline_id,
    destination_id: state.destination_id,
    published_at: state.published_at,
    source: { manifest: manifestJson(state.source.manifest) },
    outputs: state.outputs.map((output) =>
      output.transform === undefined
        ? {
            path: output.path,
            kind: output.kind,
            source_path: output.source_path,
            sha256: output.sha256,
            size: output.size,
          }
        : {
            path: output.path,
            kind: output.kind,
            source_path: output.source_path,
            transform: output.transform,
            sha256: output.sha256,
            size: output.size,
          },
    ),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
