import { asArray, isMapping, type YamlMapping, type YamlValue } from './yaml.js';

/** The model configs the offline check acts on. */
export interface ResolvedConfig {
  /** Unrendered: a boolean or a Jinja string. */
  readonly enabled: YamlValue | undefined;
  readonly materialized: string | undefined;
  readonly tags: readonly string[];
  /**
   * Where `enabled` was set, when a dbt_project.yml tree set it last: its
   * key path below that tree (`['retail_analytics', 'migration', '+enabled']`),
   * so a finding about it is placed at the expression, not at the model.
   */
  readonly enabledAt?: readonly string[];
}

const EMPTY: ResolvedConfig = { enabled: undefined, materialized: undefined, tags: [] };

/** The key a config has at one level of a dbt_project.yml tree: `+name`, or a bare name whose value is not a folder. */
function configKey(level: YamlMapping, name: string): string | undefined {
  if (level[`+${name}`] !== undefined) return `+${name}`;
  const bare = level[name];
  return bare !== undefined && !isMapping(bare) ? name : undefined;
}

function configValue(level: YamlMapping, name: string): YamlValue | undefined {
  const key = configKey(level, name);
  return key === undefined ? undefined : level[key];
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
    // A layer that sets `enabled` is not a dbt_project.yml key (projectConfig places its own).
    ...(enabled === undefined && base.enabledAt !== undefined ? { enabledAt: base.enabledAt } : {}),
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
  const placed = (config: ResolvedConfig, level: YamlMapping, path: readonly string[]): ResolvedConfig => {
    const key = configKey(level, 'enabled');
    return key === undefined ? config : { ...config, enabledAt: [...path, key] };
  };
  let config = placed(applyConfig(EMPTY, tree), tree, []);
  let level: YamlValue | undefined = tree[projectName];
  const path = [projectName];
  for (const part of [undefined, ...parts]) {
    if (part !== undefined) {
      level = isMapping(level) ? level[part] : undefined;
      path.push(part);
    }
    if (!isMapping(level)) break;
    config = placed(applyConfig(config, level), level, path);
  }
  return config;
}
