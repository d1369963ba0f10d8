import { isAbsolute, resolve } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from 'yaml';
import type { OutputCategories } from '../model/types.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { BUCKET_PATTERN, ENDPOINT_PATTERN, ID_PATTERN, PREFIX_PATTERN } from './schema.js';
import type { DestinationConfig, DistributorConfig, PipelineConfig } from './types.js';

export const DEFAULT_CONFIG_FILE = 'sealkit.distributor.yaml';
export const CONFIG_MAX_BYTES = 1024 * 1024;

type Plain = string | number | boolean | null | readonly Plain[] | { readonly [key: string]: Plain };
type PlainMap = { readonly [key: string]: Plain };

/**
 * Parses the configuration strictly: YAML 1.2 core schema, one document, no
 * duplicate keys, no anchors, aliases or explicit tags, string keys only;
 * then every key is checked (unknown keys refused) and every value typed.
 * Relative roots are resolved against `baseDir` (the file's directory).
 */
export function parseConfig(bytes: Uint8Array, baseDir: string): DistributorConfig {
  if (bytes.length > CONFIG_MAX_BYTES) throw refuse('config_invalid_value');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuse('config_not_yaml');
  }
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    uniqueKeys: true,
    strict: true,
    merge: false,
    prettyErrors: false,
    keepSourceTokens: false,
  });
  for (const error of doc.errors) {
    if (error.code === 'DUPLICATE_KEY') throw refuse('config_duplicate_key');
    if (error.code === 'MULTIPLE_DOCS') throw refuse('config_unsupported_yaml');
  }
  if (doc.errors.length > 0 || doc.warnings.length > 0) throw refuse('config_not_yaml');
  if (doc.directives?.docStart === true && doc.directives.yaml.explicit)
    throw refuse('config_unsupported_yaml');
  const value = toPlain(doc.contents ?? null);
  return readConfig(value, baseDir);
}

function toPlain(node: Node | null | unknown): Plain {
  if (node === null) return null;
  if (isAlias(node)) throw refuse('config_unsupported_yaml');
  const tagged = node as { anchor?: string; tag?: string };
  if (tagged.anchor !== undefined || tagged.tag !== undefined) throw refuse('config_unsupported_yaml');
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw refuse('config_wrong_type');
  }
  if (isSeq(node)) return node.items.map((item) => toPlain(item));
  if (isMap(node)) {
    const out: { [key: string]: Plain } = Object.create(null);
    for (const pair of node.items) {
      const key = pair.key;
      if (!isScalar(key) || typeof key.value !== 'string') throw refuse('config_wrong_type');
      const keyTagged = key as { anchor?: string; tag?: string };
      if (keyTagged.anchor !== undefined || keyTagged.tag !== undefined)
        throw refuse('config_unsupported_yaml');
      out[key.value] = toPlain(pair.value ?? null);
    }
    return out;
  }
  throw refuse('config_unsupported_yaml');
}

function readConfig(value: Plain, baseDir: string): DistributorConfig {
  const top = object(value, ['pipelines'], [], 'pipelines');
  const pipelines = array(top.pipelines, 'pipelines').map((entry) => readPipeline(entry, baseDir));
  unique(pipelines.map((pipeline) => pipeline.id));
  return { pipelines };
}

function readPipeline(value: Plain, baseDir: string): PipelineConfig {
  const pipeline = object(value, ['id', 'source', 'destinations'], [], 'pipelines[]');
  const source = object(pipeline.source, ['root'], [], 'pipelines[].source');
  const destinations = array(pipeline.destinations, 'pipelines[].destinations').map((entry) =>
    readDestination(entry, baseDir),
  );
  unique(destinations.map((destination) => destination.id));
  return {
    id: id(pipeline.id, 'pipelines[].id'),
    source: { root: path(source.root, baseDir, 'pipelines[].source.root') },
    destinations,
  };
}

function readDestination(value: Plain, baseDir: string): DestinationConfig {
  const field = 'pipelines[].destinations[]';
  const kind =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as PlainMap).kind
      : undefined;
  if (kind === 'local') {
    const destination = object(value, ['id', 'kind', 'root', 'outputs'], [], field);
    return {
      id: id(destination.id, `${field}.id`),
      kind: 'local',
      root: path(destination.root, baseDir, `${field}.root`),
      outputs: outputs(destination.outputs),
    };
  }
  if (kind === 's3') {
    const destination = object(
      value,
      ['id', 'kind', 'bucket', 'prefix', 'outputs'],
      ['endpoint', 'region', 'force_path_style'],
      field,
    );
    return {
      id: id(destination.id, `${field}.id`),
      kind: 's3',
      bucket: matching(destination.bucket, BUCKET_PATTERN, `${field}.bucket`),
      prefix: matching(destination.prefix, PREFIX_PATTERN, `${field}.prefix`),
      ...(destination.endpoint === undefined
        ? {}
        : { endpoint: matching(destination.endpoint, ENDPOINT_PATTERN, `${field}.endpoint`) }),
      ...(destination.region === undefined
        ? {}
        : { region: nonEmpty(destination.region, `${field}.region`) }),
      ...(destination.force_path_style === undefined
        ? {}
        : { force_path_style: boolean(destination.force_path_style, `${field}.force_path_style`) }),
      outputs: outputs(destination.outputs),
    };
  }
  if (kind === undefined) throw refuse('config_missing_key', `${field}.kind`);
  if (typeof kind !== 'string') throw refuse('config_wrong_type', `${field}.kind`);
  throw refuse('config_invalid_value', `${field}.kind`);
}

function outputs(value: Plain | undefined): OutputCategories {
  const field = 'pipelines[].destinations[].outputs';
  const map = object(value, ['source', 'html'], [], field);
  const result = { source: boolean(map.source, `${field}.source`), html: boolean(map.html, `${field}.html`) };
  if (!result.source && !result.html) throw refuse('config_invalid_value', field);
  return result;
}

function object(
  value: Plain | undefined,
  required: readonly string[],
  optional: readonly string[],
  field: string,
): PlainMap {
  if (value === undefined) throw refuse('config_missing_key', field);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw refuse('config_wrong_type', field);
  const map = value as PlainMap;
  for (const key of Object.keys(map)) {
    if (!required.includes(key) && !optional.includes(key)) throw refuse('config_unknown_key', field);
  }
  for (const key of required) if (!(key in map)) throw refuse('config_missing_key', field);
  return map;
}

function array(value: Plain | undefined, field: string): readonly Plain[] {
  if (!Array.isArray(value)) throw refuse('config_wrong_type', field);
  if (value.length === 0) throw refuse('config_invalid_value', field);
  return value as readonly Plain[];
}

function id(value: Plain | undefined, field: string): string {
  return matching(value, ID_PATTERN, field);
}

function matching(value: Plain | undefined, pattern: RegExp, field: string): string {
  if (typeof value !== 'string') throw refuse('config_wrong_type', field);
  if (!pattern.test(value)) throw refuse('config_invalid_value', field);
  return value;
}

function nonEmpty(value: Plain | undefined, field: string): string {
  if (typeof value !== 'string') throw refuse('config_wrong_type', field);
  if (value.length === 0) throw refuse('config_invalid_value', field);
  return value;
}

function boolean(value: Plain | undefined, field: string): boolean {
  if (typeof value !== 'boolean') throw refuse('config_wrong_type', field);
  return value;
}

function path(value: Plain | undefined, baseDir: string, field: string): string {
  const text = nonEmpty(value, field);
  if (text.includes('\u0000')) throw refuse('config_invalid_value', field);
  return isAbsolute(text) ? resolve(text) : resolve(baseDir, text);
}

function unique(ids: readonly string[]): void {
  if (new Set(ids).size !== ids.length) throw refuse('config_duplicate_id');
}

function refuse(code: DistributorRefusalCode, field?: string) {
  return refuseDistributor(code, field === undefined ? { role: 'config' } : { role: 'config', field });
}
