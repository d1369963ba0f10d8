import type { ChangeVerdict } from './verdict.js';

interface RuleSpec {
  readonly verdict: ChangeVerdict;
  /** What the rule detects, for docs and reports. */
  readonly summary: string;
}

/**
 * The classifier's rule table. Each rule has one fixed verdict, so the table
 * is the policy: a reviewer reads it here (and in docs/contracts.md) without
 * reading the comparison code. Anchors: buf's breaking rules (FIELD_NO_DELETE,
 * FIELD_SAME_TYPE, ...), datacontract-cli's breaking/changelog rules and dbt's
 * contract breaking changes (removing a column, changing its data type,
 * removing a constraint); `widening` is sealkit's own verdict.
 */
export const CONTRACT_RULES = {
  version_changed: { verdict: 'compatible', summary: 'the contract version changed' },
  compatibility_strengthened: {
    verdict: 'compatible',
    summary: 'the declared compatibility mode promises more (none → backward/forward → full)',
  },
  compatibility_weakened: {
    verdict: 'breaking',
    summary: 'the declared compatibility mode promises less, or switched between backward and forward',
  },
  field_added: { verdict: 'compatible', summary: 'a field was added' },
  field_removed: {
    verdict: 'breaking',
    summary: 'a field was removed (a rename is a removal and an addition)',
  },
  field_type_widened: {
    verdict: 'widening',
    summary: 'a field type was widened: every old value still fits, new values may not fit old readers',
  },
  field_type_changed: {
    verdict: 'breaking',
    summary: 'a field type changed other than by widening (narrowing included)',
  },
  field_nullable_relaxed: { verdict: 'widening', summary: 'a non-nullable field became nullable' },
  field_nullable_tightened: { verdict: 'compatible', summary: 'a nullable field became non-nullable' },
  field_classification_lowered: {
    verdict: 'widening',
    summary: 'a field classification was lowered: a wider audience may see it',
  },
  field_classification_raised: {
    verdict: 'breaking',
    summary: 'a field classification was raised: readers who could see it may lose access',
  },
  field_cde_added: { verdict: 'compatible', summary: 'a field was marked a critical data element' },
  field_cde_removed: {
    verdict: 'breaking',
    summary: 'a field lost its critical-data-element marker and the guarantees that come with it',
  },
  field_definitions_changed: {
    verdict: 'compatible',
    summary: 'the authoritative definition links of a field changed',
  },
  field_deprecation_changed: {
    verdict: 'compatible',
    summary: 'deprecation guidance of a field was added, changed or removed (its sunset not moved earlier)',
  },
  field_sunset_advanced: {
    verdict: 'breaking',
    summary:
      'the announced sunset of a deprecated field moved earlier: readers lose it before the promised date',
  },
  check_added: { verdict: 'compatible', summary: 'a check was added: readers receive fewer values' },
  check_removed: {
    verdict: 'widening',
    summary: 'a check was removed: readers may receive values it excluded',
  },
  check_severity_relaxed: {
    verdict: 'widening',
    summary: 'a check went from error to warn: violating values may reach readers',
  },
  check_severity_raised: { verdict: 'compatible', summary: 'a check went from warn to error' },
  unique_fields_reduced: {
    verdict: 'compatible',
    summary: 'a unique check holds on fewer of its fields: a stronger guarantee',
  },
  unique_fields_extended: {
    verdict: 'widening',
    summary: 'a unique check holds on more fields: duplicates of the old key may reach readers',
  },
  accepted_values_added: { verdict: 'widening', summary: 'an accepted-values check accepts more values' },
  accepted_values_removed: {
    verdict: 'compatible',
    summary: 'an accepted-values check accepts fewer values',
  },
  sql_changed: {
    verdict: 'breaking',
    summary: 'the model SQL changed: sealkit cannot prove the new query returns the same rows',
  },
  dataset_changed: { verdict: 'breaking', summary: 'a semantic model reads another dataset' },
  default_time_dimension_changed: {
    verdict: 'breaking',
    summary: 'the default aggregation time dimension of a semantic model changed',
  },
  member_added: {
    verdict: 'compatible',
    summary: 'an entity, dimension, measure, relationship or filter was added',
  },
  member_removed: {
    verdict: 'breaking',
    summary: 'an entity, dimension, measure, relationship or filter was removed',
  },
  entity_changed: { verdict: 'breaking', summary: 'an entity type or field tuple changed' },
  dimension_changed: {
    verdict: 'breaking',
    summary: 'a dimension type, bound field or time granularity changed',
  },
  binding_type_widened: {
    verdict: 'widening',
    summary: 'the physical type a dimension, measure or filter binds to was widened',
  },
  binding_type_changed: {
    verdict: 'breaking',
    summary: 'the physical type a dimension, measure or filter binds to changed other than by widening',
  },
  measure_changed: {
    verdict: 'breaking',
    summary: 'a measure aggregation, bound field, time dimension changed, or its empty result became zero',
  },
  measure_empty_result_null: {
    verdict: 'widening',
    summary: 'a measure returned zero on empty input and now returns null',
  },
  relationship_changed: {
    verdict: 'breaking',
    summary: 'a relationship field tuple, target, cardinality or path changed',
  },
  filter_changed: { verdict: 'breaking', summary: 'the conditions of a named filter changed' },
} as const satisfies Readonly<Record<string, RuleSpec>>;

export type ContractRuleId = keyof typeof CONTRACT_RULES;

export const CONTRACT_RULE_IDS = Object.keys(CONTRACT_RULES) as readonly ContractRuleId[];
