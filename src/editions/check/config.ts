import { asArray, isMapping, type YamlMapping, type YamlValue } from './yaml.js';

/** The model configs the offline check acts on. */
export interface ResolvedConfig {
  /** Unrendered: a boolean or a Jinja string. */
  readonly enabled: YamlValue | undefined;
  readonly materialized: string | undefined;
  readonly tags: readonly string[];
}

const EMPTY: ResolvedConfig = { enabled: undefined, materialized: undefined, tags: [] };

/** A config key at one level of a dbt_project.yml tree: `+name`, or a bare name whose value is not a folder. */
function configValue(level: YamlMapping, name: string): YamlValue | undefined {
  const plus = level[`+${name}`];
  if (plus !== undefined) return plus;
  const bare = level[name];
  return bare !== undefined && !isMapping(bare) ? bare : undefined;
}

function tagsOf(value: YamlValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  return asArray(value).filter((item): item is string => typeof item === 'string');
}

/** Applies one level's configs: enabled and materialized override, tags add up (as in dbt). */
export function applyConfig(base: ResolvedConfig, level: YamlMapping | undefined): ResolvedConfig {
  if (level === undefined) return base;
  const enabled = configValue(level, 'enabled');
  const materialized = configValue(level, 'materialized');
  const tags = [...new Set([...base.tags, ...tagsOf(configValue(level, 'tags'))])].sort();
  return {
    enabled: enabled ?? base.enabled,
    materialized: typeof materialized === 'string' ? materialized : base.materialized,
    tags,
  };
}

/**
 * The config a dbt_project.yml `models:` or `sources:` tree gives the
 * resource at `parts` (folders below the model path, then the resource
 * name): the top level, then `<project>`, then each folder, most specific
 * last.
 */
export function projectConfig(
  tree: YamlValue | undefined,
  projectName: string,
  parts: readonly string[],
): ResolvedConfig {
  if (!isMapping(tree)) return EMPTY;
  let config = applyConfig(EMPTY, tree);
  let level: YamlValue | undefined = tree[projectName];
  for (const part of [undefined, ...parts]) {
    if (part !== undefined) level = isMapping(level) ? level[part] : undefined;
    if (!isMapping(level)) break;
    config = applyConfig(config, level);
  }
  return config;
}
