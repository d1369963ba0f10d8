import { didYouMean } from '../../core/refusal/index.js';
import type { ModelProperties, VersionProperties, VersionValue } from './properties.js';
import { draft, type FindingDraft } from './report.js';
import { modelRelation } from './sql.js';
import { isMapping, type YamlMapping, type YamlValue } from './yaml.js';

/**
 * Versioned models (dbt 1.5): a model with `versions:` is one model per
 * version, each from its own SQL file, named `<name>` with that version.
 * What follows is what dbt's parser does with them (docs/editions.md,
 * "Versioned models").
 */

/** One version of a versioned model, with the SQL file that defines it. */
export interface ModelVersion {
  /** The versioned model's name. */
  readonly model: string;
  readonly props: VersionProperties;
  /** The model's properties entry, where its versions are listed. */
  readonly entry: ModelProperties;
  /** dbt's name for it in ref lookups and selection: `<name>.v<version>`. */
  readonly node: string;
  /** The SQL file's name without `.sql`. */
  readonly fileBase: string;
  /** The properties' config of this version: the model's, with the version's merged over it, as dbt merges them. */
  readonly config: YamlMapping | undefined;
  /** Where it is built: its alias, `<name>_v<version>` unless configured. */
  readonly relation: string;
  readonly latest: boolean;
}

export interface VersionedModel {
  readonly name: string;
  /** The versions that have a SQL file, in the order written. */
  readonly versions: readonly ModelVersion[];
  /** The version an unpinned ref() reads; undefined when it has no SQL file. */
  readonly latest: ModelVersion | undefined;
  /** Every version written, as dbt writes it, for a hint. */
  readonly written: readonly string[];
}

export interface VersionedModels {
  readonly byName: ReadonlyMap<string, VersionedModel>;
  /** By SQL file name (without `.sql`): the version it defines. */
  readonly byFile: ReadonlyMap<string, ModelVersion>;
  /** By `<name>.v<version>`. */
  readonly byNode: ReadonlyMap<string, ModelVersion>;
  /** What dbt refuses in the versions written: each a finding of its properties file. */
  readonly findings: readonly FindingDraft[];
}

/** Python's `==` of two version values: numbers by value (`1 == 1.0`), text by text, never one with the other. */
export function sameVersion(a: VersionValue, b: VersionValue): boolean {
  if (a.number !== undefined && b.number !== undefined) return a.number === b.number;
  return a.kind === 'str' && b.kind === 'str' && a.text === b.text;
}

/** What Python's `float()` makes of a version, or undefined where it raises. */
function asFloat(value: VersionValue): number | undefined {
  if (value.number !== undefined) return value.number;
  const text = value.text.trim().replaceAll('_', '');
  if (/^[-+]?(?:inf(?:inity)?|nan)$/i.test(text))
    return Number(text.replace(/^([-+]?)inf(?:inity)?$/i, '$1Infinity'));
  return /^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/.test(text) ? Number(text) : undefined;
}

/** dbt orders versions by their float value, or by their text when one is not a number. */
function before(a: VersionValue, b: VersionValue): boolean {
  const [x, y] = [asFloat(a), asFloat(b)];
  if (x !== undefined && y !== undefined) return x < y;
  return a.text < b.text;
}

/** Python's `max()`: the first of the greatest. */
function greatest(values: readonly VersionProperties[]): VersionProperties | undefined {
  let best: VersionProperties | undefined;
  for (const value of values) if (best === undefined || before(best.v, value.v)) best = value;
  return best;
}

/** dbt_common's deep_merge: mappings merged key by key, anything else replaced. */
function deepMerge(base: YamlMapping | undefined, over: YamlMapping | undefined): YamlMapping | undefined {
  if (base === undefined) return over;
  if (over === undefined) return base;
  const out: { [key: string]: YamlValue } = {};
  const set = (key: string, value: YamlValue): void => {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const [key, value] of Object.entries(base)) set(key, value);
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    set(key, isMapping(current) && isMapping(value) ? (deepMerge(current, value) ?? value) : value);
  }
  return out;
}

/**
 * dbt's default alias of a version: `<name>_v<version>` with each `.` made
 * `_`; a version Python holds false (0) gives the name alone, as dbt's
 * `generate_alias_name` tests it.
 */
function defaultAlias(name: string, v: VersionValue): string {
  return v.number === 0 ? name : `${name}_v${v.text.replaceAll('.', '_')}`;
}

const listed = (texts: readonly string[]): string => texts.join(', ');

/**
 * The version meant instead of one a model lacks: for a number, the
 * nearest by value (the greater of two as near), as a version is a place in
 * an order, not a spelling; for text, the nearest spelling.
 */
function versionMeant(given: string, versions: readonly string[]): string | undefined {
  const value = asFloat({ kind: 'str', text: given });
  if (value === undefined) return didYouMean(given, versions);
  let best: { readonly text: string; readonly distance: number; readonly value: number } | undefined;
  for (const text of versions) {
    const other = asFloat({ kind: 'str', text });
    if (other === undefined) continue;
    const distance = Math.abs(other - value);
    if (best === undefined || distance < best.distance || (distance === best.distance && other > best.value))
      best = { text, distance, value: other };
  }
  return best === undefined ? undefined : `did you mean ${best.text}?`;
}

const at = (entry: ModelProperties, place: { line?: number; column?: number; pointer?: string }) => ({
  file: entry.file,
  ...place,
});

/**
 * The versioned models of a project: for each, which file defines each
 * version and which is the latest, and what dbt refuses (a version listed
 * twice, a latest_version that is no version, a version whose file is
 * missing, an include/exclude dbt does not read). `files` are the model
 * files by name (without `.sql`); `entries` the first properties entry of
 * each model name.
 */
export function versionedModels(
  entries: Iterable<ModelProperties>,
  files: ReadonlyMap<string, readonly string[]>,
): VersionedModels {
  const byName = new Map<string, VersionedModel>();
  const byFile = new Map<string, ModelVersion>();
  const byNode = new Map<string, ModelVersion>();
  const findings: FindingDraft[] = [];
  const fileNames = [...files.keys()];
  for (const entry of entries) {
    if (entry.versions.length === 0) continue;
    const name = entry.name;
    const unique: VersionProperties[] = [];
    for (const version of entry.versions) {
      // dbt compares versions as text here: 1 and '1' are one version, 1 and 1.0 two.
      const first = unique.find((other) => other.v.text === version.v.text);
      if (first === undefined) {
        unique.push(version);
        continue;
      }
      findings.push(
        draft('duplicate_version', {
          ...at(entry, version.vAt),
          hint: `version ${version.v.text} of '${name}' is listed already${first.vAt.line === undefined ? '' : ` at line ${first.vAt.line}`}, and dbt refuses a version twice: remove one`,
        }),
      );
    }
    for (const version of unique)
      if (version.columnsProblem !== undefined)
        findings.push(
          draft('version_columns_invalid', {
            ...at(entry, version.columnsProblem.at),
            hint: `version ${version.v.text} of '${name}': ${version.columnsProblem.hint}`,
          }),
        );
    const texts = unique.map((version) => version.v.text);
    const given = entry.latestVersion;
    const named = given === undefined ? undefined : unique.find((version) => sameVersion(version.v, given.v));
    if (given !== undefined && named === undefined) {
      const near = versionMeant(given.v.text, texts);
      findings.push(
        draft('latest_version_unknown', {
          ...at(entry, given.at),
          hint: `latest_version ${given.v.kind === 'str' ? `'${given.v.text}'` : given.v.text} is not one of the versions of '${name}' (${listed(texts)})${near === undefined ? '' : `: ${near}`}`,
        }),
      );
    }
    const latest = named ?? greatest(unique);
    const versions: ModelVersion[] = [];
    // A missing file is offered one no version of this model reads already.
    const expectedFiles = new Set(
      unique.map((version) => version.definedIn?.name ?? `${name}_v${version.v.text}`),
    );
    for (const version of unique) {
      const isLatest = version === latest;
      const expected = version.definedIn?.name ?? `${name}_v${version.v.text}`;
      // The latest version may live in the file named like the model, when its own file does not exist.
      const fileBase = files.has(expected) || !isLatest || !files.has(name) ? expected : name;
      const taken = byFile.get(fileBase);
      if (!files.has(fileBase) || taken !== undefined) {
        const near = didYouMean(
          fileBase,
          fileNames.filter((file) => !expectedFiles.has(file) && !byFile.has(file)),
        );
        const where =
          version.definedIn === undefined
            ? `dbt reads it from ${fileBase}.sql (or the file defined_in: names)`
            : `defined_in: names ${fileBase}.sql`;
        findings.push(
          draft('version_file_missing', {
            ...at(entry, version.at),
            hint:
              taken === undefined
                ? `version ${version.v.text} of '${name}': ${where}, and the project has no such model file${near === undefined ? '' : `: ${near}`}`
                : `version ${version.v.text} of '${name}': ${fileBase}.sql is version ${taken.props.v.text} already, and a file defines one version`,
          }),
        );
        continue;
      }
      const config = deepMerge(entry.config, version.config);
      const alias = typeof config?.alias === 'string' ? config.alias : defaultAlias(name, version.v);
      const planned: ModelVersion = {
        model: name,
        props: version,
        entry,
        node: `${name}.v${version.v.text}`,
        fileBase,
        config,
        relation: modelRelation(alias),
        latest: isLatest,
      };
      versions.push(planned);
      byFile.set(fileBase, planned);
      byNode.set(planned.node, planned);
    }
    byName.set(name, {
      name,
      versions,
      latest: versions.find((version) => version.latest),
      written: texts,
    });
  }
  return { byName, byFile, byNode, findings };
}

/**
 * Properties written for a version's SQL file as if it were a model of its
 * own (`- name: orders_v1` beside `- name: orders` with `versions:`): dbt
 * renames that file's model to `<name>` with its version, so the entry
 * describes nothing, and its tests would reference a model that is gone.
 */
export function versionFileProperties(
  entries: readonly ModelProperties[],
  versions: VersionedModels,
): FindingDraft[] {
  const found: FindingDraft[] = [];
  for (const entry of entries) {
    if (entry.versions.length > 0) continue;
    const version = versions.byFile.get(entry.name);
    if (version === undefined || version.model === entry.name) continue;
    const where =
      version.entry.at.line === undefined
        ? version.entry.file
        : `${version.entry.file}:${version.entry.at.line}`;
    found.push(
      draft('version_file_properties', {
        ...at(entry, entry.at),
        hint: `${entry.name}.sql is version ${version.props.v.text} of '${version.model}' (${where}), which dbt names ${version.node}: these properties describe no model; move them under that version in versions:`,
      }),
    );
  }
  return found;
}

/** The hint of a ref() that pins a version the model does not have. */
export function unknownVersionHint(
  name: string,
  version: string,
  versions: VersionedModels,
  isModel: boolean,
): string {
  const versioned = versions.byName.get(name);
  if (versioned === undefined)
    return isModel
      ? `ref('${name}', v=${version}): '${name}' has no versions: write ref('${name}')`
      : `ref('${name}', v=${version}) names no model of this project`;
  if (versioned.written.includes(version))
    return `ref('${name}', v=${version}): version ${version} of '${name}' has no SQL file (see version_file_missing)`;
  const near = versionMeant(version, versioned.written);
  return `ref('${name}', v=${version}): '${name}' has no version ${version} (its versions: ${listed(versioned.written)})${near === undefined ? '' : `; ${near}`}`;
}
