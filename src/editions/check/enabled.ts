import type { YamlNode } from '../../core/input/index.js';
import type { FindingCode } from './findings.js';
import type { RenderOutcome } from './jinja.js';
import type { FindingDraft } from './report.js';
import { placeIn, type YamlMapping, type YamlValue } from './yaml.js';

/** The `enabled` an item ended with, and where dbt_project.yml set it when that file set it last. */
export interface EnabledOrigin {
  readonly expression: YamlValue | undefined;
  /** Key path below the `models:` or `sources:` tree (see ResolvedConfig.enabledAt). */
  readonly enabledAt?: readonly string[] | undefined;
}

export interface EnabledContext {
  /** dbt_project.yml with positions, when the project was read from a file. */
  readonly projectNode: YamlNode | undefined;
  readonly cliVars: YamlMapping;
  readonly render: (text: string, withProjectVars: boolean) => RenderOutcome;
}

export interface EnabledItem {
  readonly kind: 'model' | 'source';
  /** `silver_orders`, `bronze.orders`. */
  readonly name: string;
  /** Where the item itself is: its SQL file, or its table in a properties file. */
  readonly here: Omit<FindingDraft, 'code'>;
}

/**
 * The finding of an `enabled` that does not render to a boolean (or fails
 * to render). Set by dbt_project.yml, it is placed at that `+enabled` key,
 * where the fix goes, and the hint names the item, since one expression
 * gates many; set elsewhere, at the item. A value dbt's PyYAML reads as a
 * boolean but YAML 1.2 keeps as text (`yes`, `off`) gets the fix in the
 * hint; no other rendered value is shown (docs/editions.md#the-report).
 */
export function enabledFinding(
  code: FindingCode,
  origin: EnabledOrigin,
  item: EnabledItem,
  tree: 'models' | 'sources',
  context: EnabledContext,
): FindingDraft {
  const fromProject = origin.enabledAt !== undefined && context.projectNode !== undefined;
  const hint = code === 'config_not_boolean' ? yaml11Hint(origin, context) : undefined;
  const named = `${item.kind} ${item.name}`;
  const fullHint = fromProject ? (hint === undefined ? `for ${named}` : `${named}: ${hint}`) : hint;
  const place = fromProject
    ? { file: 'dbt_project.yml', ...placeIn(context.projectNode, [tree, ...(origin.enabledAt ?? [])]) }
    : item.here;
  return {
    ...place,
    code,
    ...(fullHint === undefined ? {} : { hint: fullHint }),
    ...(fromProject ? { gated: { item: named, ...(hint === undefined ? {} : { hint }) } } : {}),
  };
}

/** The words YAML 1.1 (PyYAML, which dbt reads YAML with) takes for booleans, and YAML 1.2 keeps as text. */
const YAML11_BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['y', true],
  ['yes', true],
  ['on', true],
  ['n', false],
  ['no', false],
  ['off', false],
]);

function yaml11Hint(origin: EnabledOrigin, context: EnabledContext): string | undefined {
  if (typeof origin.expression !== 'string') return undefined;
  const rendered = context.render(origin.expression, origin.enabledAt === undefined);
  if (!rendered.ok) return undefined;
  const text = rendered.text.trim();
  const meant = YAML11_BOOLEANS.get(text.toLowerCase());
  if (meant === undefined) return undefined;
  const fromVars = Object.entries(context.cliVars).find(([, value]) => value === text)?.[0];
  return fromVars === undefined
    ? `it renders to '${text}', a string in YAML 1.2 (dbt's PyYAML reads it as ${meant}); write ${meant}`
    : `the --vars value '${text}' of ${fromVars} is a string in YAML 1.2 (dbt's PyYAML reads it as ${meant}); write ${fromVars}: ${meant}`;
}
