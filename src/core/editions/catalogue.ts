/**
 * The two starter editions sealkit ships under `editions/`, said once for
 * every domain: the edition commands copy them, the evidence selects one,
 * the scaffolder writes into one (docs/editions.md#the-editions). A workspace made from
 * an edition keeps its layout, so the dbt project sits at `projectDir`
 * inside the workspace: the root itself (`''`) for BigQuery, `kit/` for
 * Snowflake. Each domain derives its own view from these facts and spells
 * nothing again.
 */
export const STARTER_EDITION_FACTS = {
  bigquery: { folder: 'Bigquery', projectDir: '', projectName: 'retail_analytics' },
  snowflake: { folder: 'Snowflake', projectDir: 'kit', projectName: 'reliable_pipeline' },
} as const;

export type StarterEditionId = keyof typeof STARTER_EDITION_FACTS;
export type StarterEditionFacts = (typeof STARTER_EDITION_FACTS)[StarterEditionId];

/** Every edition, in the order the CLI lists them. */
export const STARTER_EDITION_ORDER: readonly StarterEditionId[] = ['bigquery', 'snowflake'];

/** The edition's dbt project as a path below a checkout of sealkit: `editions/Bigquery/`, `editions/Snowflake/kit/`. */
export type StarterProjectPath<F extends StarterEditionFacts> = F['projectDir'] extends ''
  ? `editions/${F['folder']}/`
  : `editions/${F['folder']}/${F['projectDir']}/`;

export function starterProjectPath<F extends StarterEditionFacts>(facts: F): StarterProjectPath<F> {
  const path =
    facts.projectDir === '' ? `editions/${facts.folder}/` : `editions/${facts.folder}/${facts.projectDir}/`;
  // The template literal type above says the same as this branch; TypeScript cannot narrow a generic through it.
  return path as StarterProjectPath<F>;
}
