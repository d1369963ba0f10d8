import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  decodeUtf8Strict,
  describeKind,
  faultPlaceHint,
  type PathSegment,
  type Position,
  pointerOf,
  readClosedRecord,
  readStrictYaml,
  type YamlEntry,
  type YamlFault,
  type YamlFaultPlace,
  type YamlMapNode,
  type YamlNode,
} from '../../core/input/index.js';
import { nearest, type Refusal, refuseAll } from '../../core/refusal/index.js';
import type { OutputCategories } from '../model/types.js';
import { pathProblem } from '../path/bundle-path.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { languageTagProblem } from './language.js';
import {
  BUCKET_PATTERN,
  CACHE_CONTROL_PATTERN,
  ENDPOINT_PATTERN,
  ID_PATTERN,
  LANG_PATTERN,
  MAX_TIMEOUT_SECONDS,
  PREFIX_PATTERN,
  REGION_PATTERN,
} from './schema.js';
import type { ConfigOrigin, DestinationConfig, DistributorConfig, PipelineConfig } from './types.js';

export const DEFAULT_CONFIG_FILE = 'sealkit.distributor.yaml';
export const CONFIG_MAX_BYTES = 1024 * 1024;
/** Deeper than any key of the configuration; bounds the reader, not the format. */
const CONFIG_MAX_DEPTH = 16;

const TOP = { required: ['pipelines'] } as const;
const PIPELINE = { required: ['id', 'source', 'destinations'] } as const;
const SOURCE = { required: ['root'] } as const;
const LOCAL = { required: ['id', 'kind', 'root', 'outputs'], optional: ['work_dir'] } as const;
const S3 = {
  required: ['id', 'kind', 'bucket', 'prefix', 'outputs'],
  optional: [
    'endpoint',
    'region',
    'force_path_style',
    'cache_control',
    'connect_timeout_seconds',
    'request_timeout_seconds',
  ],
} as const;
const OUTPUTS = { required: ['source', 'html'], optional: ['assets'] } as const;
const HTML = { required: ['lang'] } as const;
const KINDS = ['local', 's3'] as const;

const YAML_FAULTS: { readonly [F in YamlFault]: { code: DistributorRefusalCode; hint?: string } } = {
  not_utf8: { code: 'config_not_yaml', hint: 'the file is not valid UTF-8 from here' },
  malformed: { code: 'config_not_yaml' },
  duplicate_key: { code: 'config_duplicate_key' },
  multiple_documents: {
    code: 'config_unsupported_yaml',
    hint: "the file holds one YAML document: remove the '---' line and what follows",
  },
  alias: { code: 'config_unsupported_yaml', hint: 'write the value out instead of an anchor or alias' },
  tag: { code: 'config_unsupported_yaml', hint: 'remove the tag and write the plain value' },
  directive: { code: 'config_unsupported_yaml', hint: "remove the '%' directive" },
  key_not_string: { code: 'config_wrong_type', hint: 'keys are plain strings' },
  too_deep: { code: 'config_wrong_type', hint: 'nested deeper than any configuration key' },
};

/**
 * Parses the configuration strictly with the core reader
 * (docs/refusals.md#text-inputs): UTF-8 without a BOM, YAML 1.2 core schema,
 * one document, no duplicate keys, no anchors, aliases or tags, string keys
 * only; then every key is checked (unknown keys refused) and every value
 * typed. Relative roots are resolved against `baseDir` (the file's
 * directory). `shownPath` is the file as the user named it: every refusal
 * names it, with line, column and key path, and every independent error is
 * reported at once (docs/distributor.md#reading-an-error).
 */
export function parseConfig(bytes: Uint8Array, baseDir: string, shownPath?: string): DistributorConfig {
  const file = shownPath === undefined ? {} : { path: shownPath };
  const fail = (code: DistributorRefusalCode, place: YamlFaultPlace, hint?: string): Refusal =>
    refuseDistributor(code, {
      role: 'config',
      location: { ...file, ...place },
      ...(hint === undefined ? {} : { hint }),
    });
  if (bytes.length > CONFIG_MAX_BYTES)
    throw fail('config_invalid_value', {}, 'the configuration is larger than 1 MiB');
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok) {
    throw fail(
      'config_not_yaml',
      { line: decoded.line, column: decoded.column },
      decoded.reason === 'bom'
        ? 'the file starts with a byte order mark: save it as UTF-8 without BOM'
        : YAML_FAULTS.not_utf8.hint,
    );
  }
  const root = readStrictYaml(decoded.text, {
    maxDepth: CONFIG_MAX_DEPTH,
    // A tag or an anchor is refused where it is written, not at the value after it.
    refuse: (fault, place) =>
      fail(
        YAML_FAULTS[fault].code,
        place.prop === undefined ? place : { ...place, ...place.prop },
        faultPlaceHint(place) ?? YAML_FAULTS[fault].hint,
      ),
  });
  const reader = new ConfigReader(fail, baseDir, shownPath);
  const config = reader.config(root);
  if (reader.problems.length > 0 || config === undefined) {
    throw refuseAll(
      reader.problems.length > 0 ? inFileOrder(reader.problems) : [fail('config_wrong_type', {})],
    );
  }
  return config;
}

/**
 * The problems as the file reads, by line and column (the first one gives
 * the run's reason code); those without a place keep their order, last.
 */
function inFileOrder(problems: readonly Refusal[]): Refusal[] {
  const place = (refusal: Refusal): number =>
    refusal.location?.line === undefined
      ? Number.POSITIVE_INFINITY
      : refusal.location.line * 1_000_000 + (refusal.location.column ?? 0);
  return problems
    .map((refusal, index) => ({ refusal, index }))
    .sort((a, b) => place(a.refusal) - place(b.refusal) || a.index - b.index)
    .map(({ refusal }) => refusal);
}

type Fail = (code: DistributorRefusalCode, place: YamlFaultPlace, hint?: string) => Refusal;
type Path = readonly PathSegment[];

/**
 * Walks the document once, recording every problem and carrying on wherever
 * the rest does not depend on the faulty part (a destination whose `kind` is
 * wrong is not checked further; its siblings are). Problems are kept in walk
 * order, a record's unknown keys before its missing ones, so the first (the
 * `reason_code`) is the one the reader has always named first.
 */
class ConfigReader {
  readonly problems: Refusal[] = [];

  constructor(
    private readonly fail: Fail,
    private readonly baseDir: string,
    private readonly shownPath: string | undefined,
  ) {}

  private report(code: DistributorRefusalCode, at: Position, path: Path, hint?: string): undefined {
    const pointer = pointerOf(path);
    this.problems.push(
      this.fail(code, { line: at.line, column: at.column, ...(pointer === '' ? {} : { pointer }) }, hint),
    );
    return undefined;
  }

  private origin(node: YamlNode, path: Path): ConfigOrigin {
    return {
      ...(this.shownPath === undefined ? {} : { path: this.shownPath }),
      line: node.at.line,
      column: node.at.column,
      pointer: pointerOf(path),
    };
  }

  /**
   * `{<key>_origin}`: where `key` is written in the record `fields` at
   * `path`, for refusals that this one setting causes (a root that does not
   * open, a bucket that does not exist); nothing when the key is absent.
   */
  private keyOrigin<K extends string>(
    fields: ReadonlyMap<string, YamlEntry> | undefined,
    path: Path,
    key: K,
  ): { readonly [F in `${K}_origin`]?: ConfigOrigin } {
    const at = fields?.get(key)?.keyAt;
    if (at === undefined) return {};
    const origin: ConfigOrigin = {
      ...(this.shownPath === undefined ? {} : { path: this.shownPath }),
      line: at.line,
      column: at.column,
      pointer: pointerOf([...path, key]),
    };
    // A computed key widens to a string index; this one is exactly `${key}_origin`.
    return { [`${key}_origin`]: origin } as { readonly [F in `${K}_origin`]?: ConfigOrigin };
  }

  config(node: YamlNode): DistributorConfig | undefined {
    const top = this.record(node, TOP, []);
    const list = top?.get('pipelines');
    if (list === undefined) return undefined;
    const items = this.list(list.value, ['pipelines'], 'list at least one pipeline');
    if (items === undefined) return undefined;
    const pipelines = items.map((item, index) => this.pipeline(item, ['pipelines', index]));
    this.unique(items, ['pipelines']);
    return pipelines.every((p): p is PipelineConfig => p !== undefined) ? { pipelines } : undefined;
  }

  private pipeline(node: YamlNode, path: Path): PipelineConfig | undefined {
    const fields = this.record(node, PIPELINE, path);
    if (fields === undefined) return undefined;
    const id = this.field(fields, 'id', path, (value, at) => this.matching(value, ID_PATTERN, at, ID_HINT));
    const sourceEntry = fields.get('source');
    const sourcePath = [...path, 'source'];
    const source = sourceEntry === undefined ? undefined : this.record(sourceEntry.value, SOURCE, sourcePath);
    const root =
      source === undefined
        ? undefined
        : this.field(source, 'root', sourcePath, (value, at) => this.path(value, at));
    const destinationsEntry = fields.get('destinations');
    const destinationsPath = [...path, 'destinations'];
    const items =
      destinationsEntry === undefined
        ? undefined
        : this.list(destinationsEntry.value, destinationsPath, 'list at least one destination');
    const destinations = items?.map((item, index) => this.destination(item, [...destinationsPath, index]));
    if (items !== undefined) this.unique(items, destinationsPath);
    if (
      id === undefined ||
      root === undefined ||
      destinations === undefined ||
      !destinations.every((d): d is DestinationConfig => d !== undefined)
    ) {
      return undefined;
    }
    return {
      id,
      source: {
        root: root.absolute,
        shown: root.shown,
        written: root.written,
        ...this.keyOrigin(source, sourcePath, 'root'),
      },
      destinations,
      origin: this.origin(node, path),
    };
  }

  private sharedKeys(node: YamlMapNode, path: Path): void {
    const id = node.entries.find((entry) => entry.key === 'id');
    if (id !== undefined) this.matching(id.value, ID_PATTERN, [...path, 'id'], ID_HINT);
    const outputs = node.entries.find((entry) => entry.key === 'outputs');
    if (outputs !== undefined) this.outputs(outputs, [...path, 'outputs']);
  }

  private destination(node: YamlNode, path: Path): DestinationConfig | undefined {
    if (node.kind !== 'map') return this.wrongType(node, path, 'a mapping');
    const kindEntry = node.entries.find((entry) => entry.key === 'kind');
    if (kindEntry === undefined)
      return this.report('config_missing_key', node.at, [...path, 'kind'], "add 'kind: local' or 'kind: s3'");
    const kind = kindEntry.value;
    if (kind.kind !== 'string') return this.wrongType(kind, [...path, 'kind'], 'a string');
    if (kind.value !== 'local' && kind.value !== 's3') {
      const near = nearest(kind.value, KINDS);
      this.report(
        'config_invalid_value',
        kind.at,
        [...path, 'kind'],
        near === undefined ? "kind is 'local' or 's3'" : `did you mean '${near}'?`,
      );
      // Every fault at once: the keys both kinds share are still checked, and
      // when the kind is a misspelling of one (`locall`), the keys are held to
      // that kind's, so a misspelt key beside it shows in the same run.
      this.sharedKeys(node, path);
      if (near !== undefined) this.record(node, near === 'local' ? LOCAL : S3, path);
      return undefined;
    }
    const fields = this.record(node, kind.value === 'local' ? LOCAL : S3, path);
    if (fields === undefined) return undefined;
    const id = this.field(fields, 'id', path, (value, at) => this.matching(value, ID_PATTERN, at, ID_HINT));
    // Read in the order the keys are usually written, so problems come in file order.
    const origin = this.origin(node, path);
    if (kind.value === 'local') {
      const root = this.field(fields, 'root', path, (value, at) => this.path(value, at));
      const workDir = this.optional(fields, 'work_dir', path, (value, at) => this.path(value, at));
      const outputs = this.outputs(fields.get('outputs'), [...path, 'outputs']);
      if (id === undefined || root === undefined || outputs === undefined || workDir === null)
        return undefined;
      return {
        id,
        kind: 'local',
        ...this.keyOrigin(fields, path, 'kind'),
        root: root.absolute,
        shown_root: root.shown,
        written_root: root.written,
        ...this.keyOrigin(fields, path, 'root'),
        ...(workDir === undefined
          ? {}
          : {
              work_dir: workDir.absolute,
              shown_work_dir: workDir.shown,
              written_work_dir: workDir.written,
              ...this.keyOrigin(fields, path, 'work_dir'),
            }),
        outputs,
        origin,
      };
    }
    const bucket = this.field(fields, 'bucket', path, (value, at) =>
      this.ruled(this.matching(value, BUCKET_PATTERN, at, bucketHint(value)), bucketProblem, value, at),
    );
    const prefix = this.field(fields, 'prefix', path, (value, at) =>
      value.kind === 'null'
        ? this.report('config_wrong_type', value.at, at, EMPTY_PREFIX_HINT)
        : this.ruled(this.matching(value, PREFIX_PATTERN, at, prefixHint(value)), prefixProblem, value, at),
    );
    const endpoint = this.optional(fields, 'endpoint', path, (value, at) => {
      const url = this.ruled(
        this.matching(value, ENDPOINT_PATTERN, at, endpointHint(value)),
        endpointProblem,
        value,
        at,
      );
      return url === undefined || bucket === undefined
        ? url
        : this.endpointWithoutBucket(url, bucket, value, at);
    });
    const region = this.optional(fields, 'region', path, (value, at) =>
      this.matching(value, REGION_PATTERN, at, REGION_HINT),
    );
    const forcePathStyle = this.optional(fields, 'force_path_style', path, (value, at) =>
      this.boolean(value, at),
    );
    const cacheControl = this.optional(fields, 'cache_control', path, (value, at) =>
      this.matching(value, CACHE_CONTROL_PATTERN, at, 'Cache-Control is 1 to 256 printable ASCII characters'),
    );
    const connectTimeout = this.optional(fields, 'connect_timeout_seconds', path, (value, at) =>
      this.seconds(value, at),
    );
    const requestTimeout = this.optional(fields, 'request_timeout_seconds', path, (value, at) =>
      this.seconds(value, at),
    );
    const outputs = this.outputs(fields.get('outputs'), [...path, 'outputs']);
    if (
      id === undefined ||
      bucket === undefined ||
      prefix === undefined ||
      outputs === undefined ||
      endpoint === null ||
      region === null ||
      forcePathStyle === null ||
      cacheControl === null ||
      connectTimeout === null ||
      requestTimeout === null
    ) {
      return undefined;
    }
    // Refusals of the store about one setting point at its key (docs/distributor.md#s3-refusals).
    return {
      id,
      kind: 's3',
      ...this.keyOrigin(fields, path, 'kind'),
      bucket,
      ...this.keyOrigin(fields, path, 'bucket'),
      prefix,
      ...this.keyOrigin(fields, path, 'prefix'),
      ...(endpoint === undefined ? {} : { endpoint, ...this.keyOrigin(fields, path, 'endpoint') }),
      ...(region === undefined ? {} : { region, ...this.keyOrigin(fields, path, 'region') }),
      ...(forcePathStyle === undefined ? {} : { force_path_style: forcePathStyle }),
      ...(cacheControl === undefined ? {} : { cache_control: cacheControl }),
      ...(connectTimeout === undefined ? {} : { connect_timeout_seconds: connectTimeout }),
      ...(requestTimeout === undefined ? {} : { request_timeout_seconds: requestTimeout }),
      outputs,
      origin,
    };
  }

  private outputs(entry: YamlEntry | undefined, path: Path): OutputCategories | undefined {
    if (entry === undefined) return undefined;
    const fields = this.record(entry.value, OUTPUTS, path);
    if (fields === undefined) return undefined;
    const source = this.field(fields, 'source', path, (value, at) => this.boolean(value, at));
    const html = this.field(fields, 'html', path, (value, at) => this.html(value, at));
    const assets = this.optional(fields, 'assets', path, (value, at) => this.boolean(value, at));
    if (source === undefined || html === undefined || assets === null) return undefined;
    if (!source && !html.on && assets !== true) {
      return this.report('config_invalid_value', entry.value.at, path, 'set source, html or assets to true');
    }
    return {
      source,
      html: html.on,
      ...(assets === true ? { assets } : {}),
      ...(html.lang === undefined ? {} : { lang: html.lang }),
    };
  }

  /** `html: true|false`, or `html: {lang: en}` (pages on, in that language). */
  private html(node: YamlNode, path: Path): { on: boolean; lang?: string } | undefined {
    if (node.kind === 'boolean') return { on: node.value };
    if (node.kind !== 'map')
      return this.notBoolean(node, path, 'true, false or a mapping such as {lang: en}');
    const fields = this.record(node, HTML, path);
    const lang =
      fields === undefined
        ? undefined
        : this.field(fields, 'lang', path, (value, at) => this.lang(value, at));
    return lang === undefined ? undefined : { on: true, lang };
  }

  private lang(node: YamlNode, path: Path): string | undefined {
    const text = this.string(node, path);
    if (text === undefined) return undefined;
    const problem = languageTagProblem(text);
    if (problem !== undefined) return this.report('config_invalid_value', node.at, path, problem);
    return LANG_PATTERN.test(text) ? text : this.report('config_invalid_value', node.at, path, LANG_HINT);
  }

  /** A closed record: every unknown and missing key is reported; the known fields are returned. */
  private record(
    node: YamlNode,
    shape: { readonly required: readonly string[]; readonly optional?: readonly string[] },
    path: Path,
  ): ReadonlyMap<string, YamlEntry> | undefined {
    if (node.kind !== 'map') return this.wrongType(node, path, 'a mapping');
    const { fields, problems } = readClosedRecord(node, shape, path);
    for (const problem of problems) {
      const credential =
        problem.kind === 'unknown_key' && problem.key !== undefined
          ? credentialKeyHint(problem.key)
          : undefined;
      this.problems.push(
        this.fail(
          problem.kind === 'unknown_key' ? 'config_unknown_key' : 'config_missing_key',
          { ...problem.at, pointer: problem.pointer },
          credential ??
            (shape === S3 ? s3MissingKeyHint(problem) : undefined) ??
            (shape === OUTPUTS ? outputsMissingKeyHint(problem) : undefined) ??
            problem.hint,
        ),
      );
    }
    return fields;
  }

  private list(node: YamlNode, path: Path, emptyHint: string): readonly YamlNode[] | undefined {
    if (node.kind !== 'seq') return this.wrongType(node, path, 'a list');
    if (node.items.length === 0) return this.report('config_invalid_value', node.at, path, emptyHint);
    return node.items;
  }

  /** A required field read with `read`; undefined when it is absent (already reported) or wrong. */
  private field<T>(
    fields: ReadonlyMap<string, YamlEntry>,
    key: string,
    path: Path,
    read: (value: YamlNode, at: Path) => T | undefined,
  ): T | undefined {
    const entry = fields.get(key);
    return entry === undefined ? undefined : read(entry.value, [...path, key]);
  }

  /** An optional field: undefined when absent, null when present and wrong (reported). */
  private optional<T>(
    fields: ReadonlyMap<string, YamlEntry>,
    key: string,
    path: Path,
    read: (value: YamlNode, at: Path) => T | undefined,
  ): T | undefined | null {
    const entry = fields.get(key);
    if (entry === undefined) return undefined;
    return read(entry.value, [...path, key]) ?? null;
  }

  /**
   * The bucket written into the endpoint's path as well as in `bucket:`
   * (`endpoint: http://host:7480/reports`) is a slip the store would answer
   * with a different error in each phase: refused here, saying where the
   * bucket goes. An endpoint with another path (a gateway behind a proxy)
   * is left as it is.
   */
  private endpointWithoutBucket(url: string, bucket: string, node: YamlNode, at: Path): string | undefined {
    let segments: readonly string[];
    try {
      segments = new URL(url).pathname.split('/').filter((segment) => segment !== '');
    } catch {
      return this.report('config_invalid_value', node.at, at, 'an endpoint is an http:// or https:// URL');
    }
    const aws = awsBucketAddressProblem(url, bucket);
    if (aws !== undefined) return this.report('config_invalid_value', node.at, at, aws);
    if (!segments.includes(bucket)) return url;
    return this.report(
      'config_invalid_value',
      node.at,
      at,
      "the endpoint is the store's address only (scheme, host and port): the bucket goes in bucket:, not in the endpoint's path",
    );
  }

  /** A value that passed its pattern, held to the further rules `problem` knows (undefined: none broken). */
  private ruled(
    text: string | undefined,
    problem: (text: string) => string | undefined,
    node: YamlNode,
    path: Path,
  ): string | undefined {
    if (text === undefined) return undefined;
    const hint = problem(text);
    return hint === undefined ? text : this.report('config_invalid_value', node.at, path, hint);
  }

  private wrongType(node: YamlNode, path: Path, expected: string, meant?: string): undefined {
    return this.report(
      'config_wrong_type',
      node.at,
      path,
      `expected ${expected}, found ${describeKind(node)}${meant ?? ''}`,
    );
  }

  private string(node: YamlNode, path: Path): string | undefined {
    if (node.kind === 'string') return node.value;
    // YAML reads `id: 2026` as a number and `id: yes` as a boolean: quoting keeps what was written.
    const quoted =
      node.kind === 'number'
        ? /^[0-9]+$/.test(node.source)
          ? `; write it in quotes to make it text: "${node.source}"`
          : '; write it in quotes if it is meant as text'
        : node.kind === 'boolean'
          ? '; write it in quotes if it is meant as text'
          : undefined;
    return this.wrongType(node, path, 'a string', quoted);
  }

  private matching(node: YamlNode, pattern: RegExp, path: Path, hint: string): string | undefined {
    const text = this.string(node, path);
    if (text === undefined) return undefined;
    return pattern.test(text) ? text : this.report('config_invalid_value', node.at, path, hint);
  }

  private nonEmpty(node: YamlNode, path: Path): string | undefined {
    const text = this.string(node, path);
    if (text === undefined) return undefined;
    return text.length > 0 ? text : this.report('config_invalid_value', node.at, path, 'must not be empty');
  }

  private boolean(node: YamlNode, path: Path): boolean | undefined {
    // YAML 1.2: `yes`, `on` and `"true"` are strings; only true and false are booleans.
    if (node.kind === 'boolean') return node.value;
    return this.notBoolean(node, path, 'true or false');
  }

  /** A value that should have been a boolean (`expected` says what else it may be). */
  private notBoolean(node: YamlNode, path: Path, expected: string): undefined {
    if (node.kind === 'string' && YAML_11_BOOLEAN.test(node.value)) {
      return this.report(
        'config_wrong_type',
        node.at,
        path,
        `expected ${expected}, found the string '${node.value}' (YAML 1.2 reads yes, no, on and off as strings: write true or false)`,
      );
    }
    return this.wrongType(node, path, expected, booleanMeant(node));
  }

  private seconds(node: YamlNode, path: Path): number | undefined {
    if (node.kind !== 'number') return this.wrongType(node, path, 'a number of seconds');
    return node.value > 0 && node.value <= MAX_TIMEOUT_SECONDS
      ? node.value
      : this.report(
          'config_invalid_value',
          node.at,
          path,
          `a timeout is more than 0 and at most ${MAX_TIMEOUT_SECONDS} seconds`,
        );
  }

  private path(node: YamlNode, path: Path): { absolute: string; shown: string; written: string } | undefined {
    const text = this.nonEmpty(node, path);
    if (text === undefined) return undefined;
    if (text.includes('\u0000'))
      return this.report('config_invalid_value', node.at, path, 'a path must not contain NUL');
    if (isAbsolute(text)) return { absolute: resolve(text), shown: text, written: text };
    const shownDir = this.shownPath === undefined ? this.baseDir : dirname(this.shownPath);
    return { absolute: resolve(this.baseDir, text), shown: join(shownDir, text), written: text };
  }

  /**
   * Ids are unique among siblings: each repeat is reported at its own id.
   * Read from the nodes, so a sibling with another fault is still compared.
   */
  private unique(nodes: readonly YamlNode[], path: Path): void {
    const first = new Map<string, number>();
    for (const [index, node] of nodes.entries()) {
      const id = node.kind === 'map' ? node.entries.find((e) => e.key === 'id')?.value : undefined;
      if (id?.kind !== 'string') continue;
      const seen = first.get(id.value);
      if (seen === undefined) first.set(id.value, index);
      else {
        this.report(
          'config_duplicate_id',
          id.at,
          [...path, index, 'id'],
          `${pointerOf([...path, seen])} has the same id`,
        );
      }
    }
  }
}

const REGION_HINT = "a region is lowercase letters, digits and '-', such as eu-central-1 or us-east-1";

/**
 * The S3 bucket naming rules beyond the characters and length the pattern
 * checks (docs/distributor.md#s3-destinations-reference-s3-backend): a name
 * that breaks one can never be created, so it is refused here, at its line,
 * rather than later as an unreachable destination.
 */
function bucketProblem(bucket: string): string | undefined {
  if (bucket.includes('..')) return "a bucket name has no two '.' in a row";
  if (bucket.includes('.-') || bucket.includes('-.')) return "a bucket name has no '-' next to a '.'";
  if (/^\d+\.\d+\.\d+\.\d+$/.test(bucket)) return 'a bucket name is not an IP address';
  if (bucket.startsWith('xn--')) return "a bucket name does not begin with 'xn--'";
  if (bucket.endsWith('-s3alias') || bucket.endsWith('--ol-s3'))
    return "a bucket name does not end with '-s3alias' or '--ol-s3' (those name access points)";
  return undefined;
}

/**
 * Which rule a bucket name that fails the pattern breaks, for the slips
 * users make: an `s3://` or `https://` address pasted whole, a folder written
 * after the bucket, capitals. The value is never repeated.
 */
function bucketHint(node: YamlNode): string {
  if (node.kind !== 'string') return BUCKET_HINT;
  const text = node.value;
  if (/^s3a?:\/\//i.test(text))
    return 'a bucket is a name, not an s3:// URL: write the name alone under bucket: and any folder after it under prefix: (s3://reports/site → bucket: reports, prefix: site)';
  if (/^https?:\/\//i.test(text))
    return "a bucket is a name, not a URL: the store's address goes under endpoint:, the bucket's name alone under bucket:";
  if (text.includes('/'))
    return "a bucket name has no '/': a folder inside the bucket goes under prefix: (reports/site → bucket: reports, prefix: site)";
  if (/[A-Z]/.test(text) && BUCKET_PATTERN.test(text.toLowerCase()))
    return 'a bucket name has no capital letters: S3 bucket names are lowercase';
  return BUCKET_HINT;
}

/**
 * What to write instead, for the slashes users bring from s3:// URLs and
 * rclone paths (`weather/`, `/weather`); the rule otherwise.
 */
function prefixHint(node: YamlNode): string {
  if (node.kind !== 'string' || node.value.length === 0) return PREFIX_HINT;
  const text = node.value;
  if (text.startsWith('/'))
    return "remove the leading '/': a prefix is a folder inside the bucket, written from its top (weather/daily, not /weather/daily)";
  if (text.endsWith('/'))
    return "remove the trailing '/': sealkit puts the '/' between the prefix and each bundle folder (weather/daily, not weather/daily/)";
  return PREFIX_HINT;
}

/**
 * Which rule an endpoint that fails the pattern breaks, for the slips users
 * make: the host and port written without a scheme (`127.0.0.1:7480`, as
 * many tools print a store's address), or an `s3://` URL. The value is never
 * repeated: it may hold credentials.
 */
function endpointHint(node: YamlNode): string {
  if (node.kind !== 'string') return 'an endpoint is an http:// or https:// URL';
  const text = node.value.trim();
  if (/^s3a?:\/\//i.test(text))
    return "an endpoint is the store's http:// or https:// address, not an s3:// URL: the bucket goes under bucket:, a folder inside it under prefix:";
  if (text !== '' && !text.includes('://'))
    return 'an endpoint starts with its scheme: write http:// before the host and port for a store without TLS (http://127.0.0.1:7480), https:// for one with it';
  return 'an endpoint is an http:// or https:// URL';
}

/**
 * AWS S3's addresses of one bucket pasted as `endpoint:`: the website
 * endpoint (`<bucket>.s3-website-<region>.amazonaws.com`), which serves the
 * published pages but takes no upload, and the bucket's own host
 * (`<bucket>.s3.<region>.amazonaws.com`), before which the SDK puts the
 * bucket a second time. Both fail at the store with errors that do not name
 * the cause (an HTML 405 page, a TLS name mismatch); for AWS S3 the endpoint
 * is left out and found from the region. Only AWS's host names are judged:
 * another store may well be served under a host named like its bucket.
 */
function awsBucketAddressProblem(url: string, bucket: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (!/\.amazonaws\.com(\.cn)?$/.test(host)) return undefined;
  if (host.split('.').some((label) => label.startsWith('s3-website')))
    return "this is a bucket's website address (s3-website), which serves the published pages but takes no uploads: leave endpoint: out to publish to AWS S3 (region: finds it)";
  if (host.startsWith(`${bucket}.s3.`) || host.startsWith(`${bucket}.s3-`))
    return "the endpoint's host name begins with the bucket, as AWS writes one bucket's address: the bucket goes under bucket: alone; leave endpoint: out to publish to AWS S3 (region: finds it)";
  return undefined;
}

/**
 * `prefix` is required although it may be empty, which users take for
 * optional: missing or left blank (`prefix:`, YAML's null), the hint says
 * how to publish at the bucket root.
 */
const EMPTY_PREFIX_HINT =
  "expected a string, found an empty value: write prefix: '' to publish at the bucket's root, or the folder to publish under";

function s3MissingKeyHint(problem: { readonly kind: string; readonly key?: string }): string | undefined {
  return problem.kind === 'missing_key' && problem.key === 'prefix'
    ? "add 'prefix': the folder of the bucket to publish under, or '' for the bucket's root"
    : undefined;
}

/**
 * Both output categories are required, so a destination says what it
 * publishes: the missing one's help says what each value means.
 */
function outputsMissingKeyHint(problem: {
  readonly kind: string;
  readonly key?: string;
}): string | undefined {
  if (problem.kind !== 'missing_key') return undefined;
  if (problem.key === 'html') return "add 'html: true' (a page for each .md file) or 'html: false'";
  if (problem.key === 'source')
    return "add 'source: true' (the bundle's files as they are) or 'source: false'";
  return undefined;
}

const PREFIX_RULES: { readonly [code: string]: string } = {
  path_not_normalized: "a prefix has no empty or '.' segment ('a//b', './a', 'a/./b')",
  path_dotdot: "a prefix has no '..' segment",
  path_too_long: 'a prefix segment is at most 255 bytes',
  path_reserved: "a prefix segment is not manifest.json and does not begin with '.distributor'",
};

const CREDENTIAL_KEYS = new Set([
  'access_key',
  'access_key_id',
  'aws_access_key_id',
  'secret_key',
  'secret_access_key',
  'aws_secret_access_key',
  'session_token',
  'aws_session_token',
  'password',
  'credentials',
]);

/**
 * A key that would put credentials in the file, said as such rather than
 * listed against the allowed keys (the value is never repeated); `profile`
 * is not a secret, but one run has one set of credentials.
 */
function credentialKeyHint(key: string): string | undefined {
  const folded = key.toLowerCase().replaceAll('-', '_');
  if (CREDENTIAL_KEYS.has(folded))
    return 'credentials never go in this file: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, in the environment, or use ~/.aws files or an instance role';
  if (folded === 'profile' || folded === 'aws_profile')
    return 'a run takes its credentials from the environment: set AWS_PROFILE for the run (to publish to two accounts, put them in two pipelines and run each with its own AWS_PROFILE and --pipeline)';
  return undefined;
}

/** A prefix is a folder of the bucket: written in normal form, like a bundle path (docs/distributor.md#path-rules). */
function prefixProblem(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  // `s3://bucket/site` pasted from the AWS CLI: said as such, not as an empty segment.
  if (/^s3a?:\/\//i.test(prefix))
    return 'a prefix is a folder in the bucket, not an s3:// URL: write the bucket under bucket: and the folder after it under prefix: (s3://reports/site → bucket: reports, prefix: site)';
  const code = pathProblem(prefix);
  if (code === undefined) return undefined;
  return PREFIX_RULES[code] ?? PREFIX_HINT;
}

/**
 * Credentials never belong in the configuration file (the SDK's provider
 * chain supplies them), and a query or fragment is not part of a store's
 * address. The hint never repeats what was written.
 */
function endpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'an endpoint is an http:// or https:// URL';
  }
  if (url.username !== '' || url.password !== '')
    return "remove 'user:password@' from the endpoint: credentials never go in this file (environment, ~/.aws files or an instance role supply them)";
  if (url.search !== '' || endpoint.includes('?'))
    return "an endpoint has no query ('?…'): scheme, host, port and at most a path";
  if (url.hash !== '' || endpoint.includes('#'))
    return "an endpoint has no fragment ('#…'): scheme, host, port and at most a path";
  return undefined;
}

const LANG_HINT = 'a language tag such as en, en-GB or de-CH (BCP 47)';
const ID_HINT = "an id is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit";
const BUCKET_HINT =
  "a bucket name is 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter or digit";
const PREFIX_HINT = "a prefix has no leading or trailing '/', no backslash and no control characters";

/**
 * The boolean a string was likely typed for (`ture`, `flase`, `"true"` in
 * quotes), so the refusal says which word to write instead of only "found
 * a string". Never the value itself (docs/distributor.md#reading-an-error).
 */
/** YAML 1.1's booleans, which YAML 1.2 (and this file) reads as strings. */
const YAML_11_BOOLEAN = /^(?:yes|no|on|off|y|n)$/i;

function booleanMeant(node: YamlNode): string | undefined {
  if (node.kind !== 'string') return undefined;
  const meant = nearest(node.value, ['true', 'false']);
  if (meant === undefined) return undefined;
  return node.value.toLowerCase() === meant ? `: write ${meant} without quotes` : `: did you mean ${meant}?`;
}
