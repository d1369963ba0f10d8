/**
 * The projection allowlist: every authored field path that contract identity
 * is built from. Together with the reviewed exclusion manifest
 * (`exclusion-manifest.json`, same folder) it must classify every field of
 * the generated authoring schemas exactly once; `checkProjectionCoverage`
 * (run by the coverage test) fails on an unclassified, overlapping, stale or
 * reshaped field. A new authored field therefore needs a projection or a
 * reviewed exclusion: it never silently drops out of identity.
 */
const CONTRACT = ['contract', 'contract.version', 'contract.compatibility'];

const FIELD = (prefix: string) => [
  prefix,
  `${prefix}[].name`,
  `${prefix}[].type`,
  `${prefix}[].nullable`,
  `${prefix}[].classification`,
  `${prefix}[].critical_data_element`,
  `${prefix}[].authoritative_definitions`,
  `${prefix}[].deprecation`,
  `${prefix}[].deprecation.guidance`,
  `${prefix}[].deprecation.replaced_by`,
  `${prefix}[].deprecation.sunset`,
];

export const PROJECTED_FIELDS: { readonly [kind: string]: readonly string[] } = {
  Source: ['kind', 'id', ...CONTRACT, ...FIELD('fields')],
  Model: [
    'kind',
    'id',
    ...CONTRACT,
    'sql',
    ...FIELD('fields'),
    'checks',
    'checks[].type',
    'checks[].fields',
    'checks[].field',
    'checks[].values',
    'checks[].severity',
  ],
  SemanticModel: [
    'kind',
    'id',
    ...CONTRACT,
    'model',
    'defaults',
    'defaults.agg_time_dimension',
    'entities',
    'entities[].name',
    'entities[].type',
    'entities[].fields',
    'dimensions',
    'dimensions[].name',
    'dimensions[].type',
    'dimensions[].field',
    'dimensions[].time_granularity',
    'measures',
    'measures[].name',
    'measures[].agg',
    'measures[].field',
    'measures[].empty_result',
    'measures[].agg_time_dimension',
    'relationships',
    'relationships[].name',
    'relationships[].fields',
    'relationships[].to',
    'relationships[].cardinality',
    'relationships[].path',
    'filters',
    'filters[].name',
    'filters[].conditions',
    'filters[].conditions[].dimension',
    'filters[].conditions[].op',
    'filters[].conditions[].value',
    'filters[].conditions[].values',
  ],
  Dashboard: [],
};
