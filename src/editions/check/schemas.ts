import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { schemasRoot } from '../installation.js';
import { refuseEdition } from '../refusals.js';
import type { YamlValue } from './yaml.js';

/** One schema violation, described only by what sealkit's shipped schema says. */
export interface SchemaViolation {
  /** The JSON Schema keyword that failed, e.g. `additionalProperties`. */
  readonly keyword: string;
  /** Where in dbt's schema the rule lives, e.g. `#/properties/models/items/additionalProperties`. */
  readonly schemaPath: string;
  /** Where in the document (a JSON pointer into the user's file, e.g. `/models/0/columns`). */
  readonly instancePath: string;
  /** additionalProperties: the key the schema does not allow (a key of the user's own file). */
  readonly key?: string;
  /** additionalProperties: the keys the schema allows there, for a "did you mean". */
  readonly allowed?: readonly string[];
  /** required: the key the mapping lacks. */
  readonly missing?: string;
  /** type: the JSON types the rule accepts. */
  readonly types?: readonly string[];
  /**
   * type, when the rule asks for a mapping: the keys dbt's schema names for
   * it (a folder of `models:` takes the configs, `+materialized`, …), for a
   * "did you mean" on a misspelt config that dbt's schema reads as a folder.
   */
  readonly mappingKeys?: readonly string[];
  /** enum, const: the values the rule accepts (from dbt's schema, never from the document). */
  readonly values?: readonly unknown[];
}

export interface DbtSchemas {
  readonly project: (value: YamlValue) => readonly SchemaViolation[];
  readonly properties: (value: YamlValue) => readonly SchemaViolation[];
  /**
   * The configs dbt's schema knows in dbt_project.yml's `models:` and
   * `sources:` trees, without their `+`: any other key there names a folder
   * or a resource.
   */
  readonly configKeys: {
    readonly models: ReadonlySet<string>;
    readonly sources: ReadonlySet<string>;
    readonly seeds: ReadonlySet<string>;
    readonly snapshots: ReadonlySet<string>;
  };
}

export const PROJECT_SCHEMA_FILE = 'dbt_project-latest.json';
export const PROPERTIES_SCHEMA_FILE = 'dbt_yml_files-latest.json';

/**
 * How ajv compiles dbt's schemas. Strict mode is off because the upstream
 * schemas use keywords without a `type` beside them (they are used exactly as
 * published). `inlineRefs: false` and `optimize: false` cut compile time by
 * about a third (bench: edition-check-plan): both schemas `$ref` their
 * `$defs` heavily, and the documents validated are small.
 */
export const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  logger: false,
  inlineRefs: false,
  code: { optimize: false },
  // The failing rule's own schema, so an unknown key can be answered with the allowed ones.
  verbose: true,
} as const;

let cached: DbtSchemas | undefined;

/** dbt's own JSON schemas (draft-07) from this installation, compiled once per process. */
export function loadDbtSchemas(): DbtSchemas {
  cached ??= compileDbtSchemas(schemasRoot());
  return cached;
}

export function compileDbtSchemas(dir: string, options: object = AJV_OPTIONS): DbtSchemas {
  let projectSchema: unknown;
  let propertiesSchema: unknown;
  try {
    // Installation data shipped with sealkit, not user input.
    projectSchema = JSON.parse(readFileSync(join(dir, PROJECT_SCHEMA_FILE), 'utf8'));
    propertiesSchema = JSON.parse(readFileSync(join(dir, PROPERTIES_SCHEMA_FILE), 'utf8'));
  } catch {
    throw refuseEdition('check_schemas_unavailable');
  }
  const ajv = new Ajv(options);
  let project: ValidateFunction;
  let properties: ValidateFunction;
  try {
    project = ajv.compile(projectSchema as object);
    properties = ajv.compile(propertiesSchema as object);
  } catch {
    throw refuseEdition('check_schemas_unavailable');
  }
  return {
    project: violations(project),
    properties: violations(properties),
    configKeys: {
      models: configNames(projectSchema, 'model_configs'),
      sources: configNames(projectSchema, 'source_configs'),
      seeds: configNames(projectSchema, 'seed_configs'),
      snapshots: configNames(projectSchema, 'snapshot_configs'),
    },
  };
}

/** The property names of one config definition of the project schema, without a leading `+`. */
function configNames(schema: unknown, definition: string): ReadonlySet<string> {
  const defs = (schema as { $defs?: Record<string, { properties?: Record<string, unknown> }> }).$defs;
  const names = Object.keys(defs?.[definition]?.properties ?? {}).map((key) => key.replace(/^\+/, ''));
  if (names.length === 0) throw refuseEdition('check_schemas_unavailable');
  return new Set(names);
}

function violations(validate: ValidateFunction): (value: YamlValue) => readonly SchemaViolation[] {
  return (value) => {
    if (validate(value)) return [];
    const seen = new Set<string>();
    const out: SchemaViolation[] = [];
    for (const error of validate.errors ?? []) {
      const seenKey = JSON.stringify([error.keyword, error.schemaPath, error.instancePath, error.params]);
      if (seen.has(seenKey)) continue;
      seen.add(seenKey);
      const key =
        error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string'
          ? error.params.additionalProperty
          : undefined;
      const properties = (error.parentSchema as { properties?: unknown } | undefined)?.properties;
      const allowed =
        key !== undefined && typeof properties === 'object' && properties !== null
          ? Object.keys(properties)
          : undefined;
      const params: Readonly<Record<string, unknown>> = error.params;
      const missing =
        error.keyword === 'required' && typeof params.missingProperty === 'string'
          ? params.missingProperty
          : undefined;
      const types =
        error.keyword === 'type'
          ? (Array.isArray(params.type) ? params.type : String(params.type).split(',')).map(String)
          : undefined;
      const mappingKeys =
        error.keyword === 'type' &&
        types?.includes('object') === true &&
        typeof properties === 'object' &&
        properties !== null
          ? Object.keys(properties)
          : undefined;
      const values =
        error.keyword === 'enum' && Array.isArray(params.allowedValues)
          ? (params.allowedValues as readonly unknown[])
          : error.keyword === 'const'
            ? [params.allowedValue]
            : undefined;
      out.push({
        keyword: error.keyword,
        schemaPath: error.schemaPath,
        instancePath: error.instancePath,
        ...(key === undefined ? {} : { key }),
        ...(allowed === undefined ? {} : { allowed }),
        ...(missing === undefined ? {} : { missing }),
        ...(types === undefined ? {} : { types }),
        ...(mappingKeys === undefined ? {} : { mappingKeys }),
        ...(values === undefined ? {} : { values }),
      });
    }
    return out.sort((a, b) => (a.schemaPath < b.schemaPath ? -1 : a.schemaPath > b.schemaPath ? 1 : 0));
  };
}
