import { defineRefusals } from '../../core/refusal/index.js';

/**
 * Why a contract project, resource or projection was refused. Messages are
 * fixed per code: they never quote a file name, a resource id, a key, a
 * literal or parser text. Contract projects are the operator's own files, so
 * where the fault is goes in the refusal's `location` (file as given, line,
 * column, key path with indices) and `hint` (nearest key, reference or
 * allowed values); values are never shown (docs/contracts.md#reading-an-error).
 * The `field` of a refusal stays the allowlisted schema path such as
 * `fields[].type`; its `role` is the resource kind (`source`, `model`,
 * `semantic_model`, `dashboard`) or the stage (`project`, `sql`, `projection`,
 * `output`).
 */
export type ContractRefusalCode =
  // reading the project folder
  | 'contract_project_missing'
  | 'contract_project_not_directory'
  | 'contract_project_unreadable'
  | 'contract_project_symlink'
  | 'contract_project_entry_unsupported'
  | 'contract_project_too_large'
  | 'contract_project_empty'
  | 'contract_project_invalid'
  | 'contract_file_too_large'
  // strict YAML
  | 'contract_yaml_not_utf8'
  | 'contract_yaml_malformed'
  | 'contract_yaml_duplicate_key'
  | 'contract_yaml_multiple_documents'
  | 'contract_yaml_alias'
  | 'contract_yaml_tag'
  | 'contract_yaml_key_not_string'
  | 'contract_yaml_number_inexact'
  | 'contract_yaml_too_deep'
  // authoring schema
  | 'contract_kind_unknown'
  | 'contract_field_unknown'
  | 'contract_field_missing'
  | 'contract_field_invalid'
  | 'contract_identifier_invalid'
  | 'contract_text_invalid'
  | 'contract_nfc_collision'
  | 'contract_literal_duplicate'
  | 'contract_duplicate_member'
  | 'contract_type_invalid'
  // the project graph
  | 'contract_duplicate_id'
  | 'contract_reference_unavailable'
  | 'contract_reference_ambiguous'
  | 'contract_reference_kind_mismatch'
  | 'contract_reference_cycle'
  | 'contract_member_unavailable'
  | 'contract_resource_not_found'
  | 'contract_resource_not_contract_bearing'
  // contract metadata
  | 'contract_version_missing'
  | 'contract_version_mismatch'
  // typed values
  | 'contract_literal_type_mismatch'
  | 'contract_literal_inexact'
  | 'contract_binding_missing'
  | 'contract_binding_conflict'
  | 'contract_aggregation_type_mismatch'
  | 'contract_arity_mismatch'
  // authoritative definition links
  | 'contract_url_invalid'
  | 'contract_url_unsupported'
  | 'contract_url_credentials'
  // model SQL
  | 'contract_sql_parse_failed'
  | 'contract_sql_not_single_select'
  | 'contract_sql_unsupported'
  | 'contract_sql_too_complex'
  | 'contract_sql_qualifier_unknown'
  | 'contract_sql_qualifier_ambiguous'
  | 'contract_sql_parser_unavailable'
  // sealing, canonical bytes and decoding
  | 'contract_not_validated'
  | 'contract_not_sealed'
  | 'contract_projection_malformed'
  | 'contract_projection_not_canonical'
  | 'contract_projection_digest_mismatch'
  // writing projections
  | 'contract_out_exists'
  | 'contract_out_parent_missing'
  | 'contract_out_failed';

export const refuseContract = defineRefusals<ContractRefusalCode>({
  contract_project_missing: {
    category: 'missing',
    message: 'the contract project folder does not exist',
  },
  contract_project_not_directory: {
    category: 'malformed',
    message: 'the contract project path is not a directory',
  },
  contract_project_unreadable: {
    category: 'unavailable',
    message: 'the contract project folder or one of its files cannot be read',
  },
  contract_project_symlink: {
    category: 'unsupported',
    message:
      'the contract project, a folder on the way to it, or an entry in it is a symbolic link, which is not followed',
  },
  contract_project_entry_unsupported: {
    category: 'unsupported',
    message: 'the contract project contains an entry that is neither a regular file nor a directory',
  },
  contract_project_too_large: {
    category: 'oversized',
    message: 'the contract project has more files or deeper folders than the limit',
  },
  contract_project_empty: {
    category: 'missing',
    message: 'the contract project holds no YAML resource file',
  },
  contract_project_invalid: {
    category: 'malformed',
    message: 'one or more resources of the contract project were refused',
  },
  contract_file_too_large: {
    category: 'oversized',
    message: 'a resource file exceeds the size limit',
  },
  contract_yaml_not_utf8: {
    category: 'malformed',
    message: 'a resource file is not valid UTF-8 without a byte order mark',
  },
  contract_yaml_malformed: {
    category: 'malformed',
    message: 'a resource file is not well-formed YAML',
  },
  contract_yaml_duplicate_key: {
    category: 'malformed',
    message: 'a YAML mapping repeats a key',
  },
  contract_yaml_multiple_documents: {
    category: 'malformed',
    message: 'a resource file holds more than one YAML document, or none',
  },
  contract_yaml_alias: {
    category: 'unsupported',
    message: 'a resource file uses a YAML anchor or alias, which are not accepted',
  },
  contract_yaml_tag: {
    category: 'unsupported',
    message: 'a resource file uses an explicit YAML tag, which is not accepted',
  },
  contract_yaml_key_not_string: {
    category: 'malformed',
    message: 'a YAML mapping has a key that is not a string',
  },
  contract_yaml_number_inexact: {
    category: 'unsupported',
    message: 'a YAML number is not a plain decimal that a double holds exactly; quote it as a string',
  },
  contract_yaml_too_deep: {
    category: 'oversized',
    message: 'a resource file nests mappings and sequences deeper than the limit',
  },
  contract_kind_unknown: {
    category: 'unsupported',
    message: 'the resource kind is missing or is not Source, Model, SemanticModel or Dashboard',
  },
  contract_field_unknown: {
    category: 'malformed',
    message: 'a resource has a field that its kind does not define',
  },
  contract_field_missing: {
    category: 'missing',
    message: 'a resource lacks a required field',
  },
  contract_field_invalid: {
    category: 'malformed',
    message: 'a resource field has a value of the wrong type or outside its allowed values',
  },
  contract_identifier_invalid: {
    category: 'malformed',
    message: 'an identifier does not follow the ASCII identifier rules',
  },
  contract_text_invalid: {
    category: 'malformed',
    message: 'a text value is not well-formed Unicode, holds a control character, or is not in NFC',
  },
  contract_nfc_collision: {
    category: 'conflict',
    message: 'two different names or values become equal after Unicode NFC normalization',
  },
  contract_literal_duplicate: {
    category: 'conflict',
    message:
      'two values of a set are written differently but are the same typed value (one instant in two time zones, one number at two scales)',
  },
  contract_duplicate_member: {
    category: 'conflict',
    message: 'a collection declares the same member or value twice',
  },
  contract_type_invalid: {
    category: 'malformed',
    message: 'a physical type is not one of the supported types, or its precision and scale are invalid',
  },
  contract_duplicate_id: {
    category: 'conflict',
    message: 'two resources of the project declare the same id',
  },
  contract_reference_unavailable: {
    category: 'missing',
    message: 'a reference names no resource of the project',
  },
  contract_reference_ambiguous: {
    category: 'conflict',
    message: 'a reference by project-local name matches more than one resource',
  },
  contract_reference_kind_mismatch: {
    category: 'mismatched',
    message: 'a reference resolves to a resource of a kind that is not expected there',
  },
  contract_reference_cycle: {
    category: 'conflict',
    message: 'resources of the project depend on each other in a cycle',
  },
  contract_member_unavailable: {
    category: 'missing',
    message:
      'a reference names a field, entity, dimension, measure or filter that the target does not declare',
  },
  contract_resource_not_found: {
    category: 'missing',
    message: 'the requested resource id is not declared by the project',
  },
  contract_resource_not_contract_bearing: {
    category: 'unsupported',
    message: 'the requested resource is a dashboard, which has no contract projection',
  },
  contract_version_missing: {
    category: 'missing',
    message: 'the resource has no authored contract metadata and no constructor fallback was given',
  },
  contract_version_mismatch: {
    category: 'mismatched',
    message: 'the constructor fallback version or compatibility differs from the authored contract metadata',
  },
  contract_literal_type_mismatch: {
    category: 'mismatched',
    message: 'a literal does not have the type of the physical field it is compared with',
  },
  contract_literal_inexact: {
    category: 'unsupported',
    message: 'a literal cannot be represented exactly in the type of its physical field',
  },
  contract_binding_missing: {
    category: 'missing',
    message: 'a dimension or measure has no binding to a declared physical field',
  },
  contract_binding_conflict: {
    category: 'conflict',
    message: 'a binding conflicts with the type of its physical field',
  },
  contract_aggregation_type_mismatch: {
    category: 'mismatched',
    message: 'a measure aggregation does not apply to the type of its physical field',
  },
  contract_arity_mismatch: {
    category: 'mismatched',
    message: 'a relationship field tuple and its target entity tuple have different lengths',
  },
  contract_url_invalid: {
    category: 'malformed',
    message: 'an authoritative definition link is not a valid absolute URL',
  },
  contract_url_unsupported: {
    category: 'unsupported',
    message:
      'an authoritative definition link uses a scheme or host form other than http(s) with a name or IP address',
  },
  contract_url_credentials: {
    category: 'unsupported',
    message: 'an authoritative definition link carries user information, which may be a credential',
  },
  contract_sql_parse_failed: {
    category: 'malformed',
    message: 'the model SQL does not parse',
  },
  contract_sql_not_single_select: {
    category: 'unsupported',
    message: 'the model SQL is not exactly one SELECT statement',
  },
  contract_sql_unsupported: {
    category: 'unsupported',
    message: 'the model SQL uses a construct outside the allowlisted SQL representation',
  },
  contract_sql_too_complex: {
    category: 'oversized',
    message: 'the model SQL is longer or nests deeper than the limit',
  },
  contract_sql_qualifier_unknown: {
    category: 'missing',
    message: 'a qualified column or star in the model SQL names no relation in its query scope',
  },
  contract_sql_qualifier_ambiguous: {
    category: 'conflict',
    message:
      'a name in the model SQL is ambiguous: a relation name bound twice in one query scope, or an unqualified column more than one relation could supply',
  },
  contract_sql_parser_unavailable: {
    category: 'unavailable',
    message: 'the SQL parser could not be loaded',
  },
  contract_not_validated: {
    category: 'unsupported',
    message: 'only resources validated by the authoring schemas, in a validated project, can be sealed',
  },
  contract_not_sealed: {
    category: 'unsupported',
    message: 'only sealed contract projections can be canonicalized',
  },
  contract_projection_malformed: {
    category: 'malformed',
    message: 'the bytes are not a leapview.contract/v1 projection in the closed representation',
  },
  contract_projection_not_canonical: {
    category: 'malformed',
    message: 'the bytes are not the exact deterministic encoding of their projection',
  },
  contract_projection_digest_mismatch: {
    category: 'mismatched',
    message: 'the projection bytes do not have the expected SHA-256 digest',
  },
  contract_out_exists: {
    category: 'conflict',
    message: 'the output folder already exists; nothing was written',
  },
  contract_out_parent_missing: {
    category: 'missing',
    message: 'the parent folder of the output folder does not exist or is not a directory',
  },
  contract_out_failed: {
    category: 'unavailable',
    message: 'the output folder could not be written; nothing was published',
  },
});

/** Refusal roles: the resource kind or the stage a refusal concerns. */
export type ContractRole =
  | 'source'
  | 'model'
  | 'semantic_model'
  | 'dashboard'
  | 'resource'
  | 'project'
  | 'sql'
  | 'projection'
  | 'output';
