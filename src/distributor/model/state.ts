import { isSha256Prefixed, type Sha256Prefixed } from '../../core/digest/index.js';
import { isJsonObject, type JsonValue, parseStrict } from '../../core/json/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import { pathProblem, pathSetProblem } from '../path/bundle-path.js';
import { refuseDistributor } from '../refusals.js';
import { parseInstant } from './instant.js';
import { isSize, manifestFromJson, manifestJson, requireExactKeys } from './manifest.js';
import type { BundlePath, DestinationState, OutputRecord } from './types.js';

/** The state file's name at every destination bundle path. */
export const STATE_FILE = '.distributor.json';
/** A state is metadata about one bundle; anything larger was not written by sealkit. */
export const STATE_MAX_BYTES = 32 * 1024 * 1024;

const invalid = (): Refusal => refuseDistributor('destination_state_invalid', { role: 'state' });

/**
 * Reads `.distributor.json` strictly: the documented shape and nothing else
 * (docs/distributor.md#outputs-and-state)
 * (sealkit wrote it, so an unknown field means someone else did). Every
 * failure is `destination_state_invalid`.
 */
export function parseState(bytes: Uint8Array): DestinationState {
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: STATE_MAX_BYTES, maxDepth: 16 });
  } catch {
    throw invalid();
  }
  if (!isJsonObject(value)) throw invalid();
  requireExactKeys(
    value,
    ['schema_version', 'pipeline_id', 'destination_id', 'published_at', 'source', 'outputs'],
    invalid,
    ['distributor_version'],
  );
  if (value.schema_version !== 1) throw invalid();
  const version = 'distributor_version' in value ? value.distributor_version : '';
  const { pipeline_id, destination_id } = value;
  if (typeof version !== 'string' || typeof pipeline_id !== 'string' || typeof destination_id !== 'string') {
    throw invalid();
  }
  const publishedAt = typeof value.published_at === 'string' ? parseInstant(value.published_at) : undefined;
  if (publishedAt === undefined) throw invalid();
  const source = value.source;
  if (source === undefined || !isJsonObject(source)) throw invalid();
  requireExactKeys(source, ['manifest'], invalid);
  const manifest = manifestFromJson(source.manifest ?? null, 'exact');
  const rawOutputs = value.outputs;
  if (!Array.isArray(rawOutputs)) throw invalid();
  const outputs = (rawOutputs as readonly JsonValue[]).map(outputFromJson);
  if (pathSetProblem(outputs.map((output) => output.path)) !== undefined) throw invalid();
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

function outputFromJson(value: JsonValue): OutputRecord {
  if (!isJsonObject(value)) throw invalid();
  requireExactKeys(value, ['path', 'kind', 'source_path', 'sha256', 'size'], invalid, ['transform']);
  const { path, kind, source_path, sha256, size, transform } = value;
  if (typeof path !== 'string' || pathProblem(path) !== undefined) throw invalid();
  if (typeof source_path !== 'string' || pathProblem(source_path) !== undefined) throw invalid();
  if (typeof sha256 !== 'string' || !isSha256Prefixed(sha256) || !isSize(size)) throw invalid();
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
  throw invalid();
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
