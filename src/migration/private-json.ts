import { type FsRefusalCode, readPrivateJson, refuseFs } from '../core/fs/index.js';
import { type JsonObject, type JsonRefusalCode, refuseJson } from '../core/json/index.js';
import type { EvidenceRole } from './fields.js';
import { EVIDENCE_LIMITS } from './limits.js';
import { guardPrivate } from './private-boundary.js';
import { type EvidenceRefusalCode, refuseEvidence } from './refusals.js';

/**
 * Core's private-file and strict-JSON codes → the admission codes of migration
 * evidence (docs/evidence.md#reason-codes). Complete by construction: a new
 * core code does not compile until it is placed here. Oversized-category JSON
 * bounds (size, depth, integer length) are `scaffold_input_oversized`; every
 * other parse failure is malformed.
 */
export const ADMISSION_CODE_FOR: { readonly [K in FsRefusalCode | JsonRefusalCode]: EvidenceRefusalCode } = {
  private_path_invalid: 'scaffold_input_missing',
  private_missing: 'scaffold_input_missing',
  private_symlink: 'scaffold_input_not_private',
  private_not_regular: 'scaffold_input_not_regular',
  private_not_owned: 'scaffold_input_not_private',
  private_mode_too_open: 'scaffold_input_not_private',
  private_hard_linked: 'scaffold_input_not_private',
  private_too_large: 'scaffold_input_oversized',
  private_parent_not_private: 'scaffold_input_not_private',
  private_changed: 'scaffold_input_not_private',
  private_unverifiable: 'scaffold_input_not_private',
  private_not_object: 'scaffold_input_malformed',
  json_not_utf8: 'scaffold_input_malformed',
  json_malformed: 'scaffold_input_malformed',
  json_duplicate_key: 'scaffold_input_malformed',
  json_too_large: 'scaffold_input_oversized',
  json_too_deep: 'scaffold_input_oversized',
  json_integer_too_long: 'scaffold_input_oversized',
  json_lone_surrogate: 'scaffold_input_malformed',
  json_trailing_data: 'scaffold_input_malformed',
  // Serializer codes cannot come from a read; mapped for completeness.
  canonical_unsupported_value: 'scaffold_input_malformed',
  canonical_non_finite: 'scaffold_input_malformed',
  canonical_lone_surrogate: 'scaffold_input_malformed',
  canonical_float_refused: 'scaffold_input_malformed',
  canonical_unsafe_integer: 'scaffold_input_malformed',
  canonical_too_deep: 'scaffold_input_malformed',
};

/** Rethrows a core fs or JSON refusal as the admission code for `role`; any other refusal passes unchanged. */
export function asAdmissionRefusal(error: unknown, role: EvidenceRole): unknown {
  if (refuseFs.is(error) || refuseJson.is(error))
    return refuseEvidence(ADMISSION_CODE_FOR[error.code], { role });
  return error;
}

/**
 * `_private_json.read_private_json` for the dry run and the run manifest: the
 * core private-file rule (current-user-owned, owner-only, single-link regular
 * file in an owner-only parent, no symlink at any component), at most 10 MiB,
 * strict UTF-8 JSON object without duplicate keys.
 */
export function readPrivateEvidenceJson(path: string, role: EvidenceRole): JsonObject {
  return guardPrivate(() => {
    try {
      return readPrivateJson(path, { maxBytes: EVIDENCE_LIMITS.privateJsonBytes });
    } catch (error: unknown) {
      throw asAdmissionRefusal(error, role);
    }
  });
}
