import { refuseContract } from '../authoring/refusals.js';
import { schemaCheckOptions } from '../authoring/schema-compilation.js';
import { ContractMetadata } from '../authoring/schemas/common.js';
import type { ModelResource, SemanticModelResource, SourceResource } from '../authoring/schemas/resource.js';
import { isValidatedResource, type Validated } from '../authoring/validate.js';
import type { BuiltContent } from './build-context.js';
import { type ContractMetadataPayload, PROFILE, type ProjectionPayload } from './payload.js';
import { type SealedProjection, sealPayload } from './sealed.js';

/** The explicit constructor fallback for resources without authored contract metadata. */
export interface ContractFallback {
  readonly version: string;
  readonly compatibility: 'backward' | 'forward' | 'full' | 'none';
}

type ContractResource = SourceResource | ModelResource | SemanticModelResource;

/**
 * Authored contract metadata is authoritative: a fallback may fill its
 * absence, but when both exist they must agree exactly.
 */
export function resolveContract(
  authored: ContractResource['contract'],
  fallback: ContractFallback | undefined,
): ContractMetadataPayload {
  let checked: ContractMetadataPayload | undefined;
  if (fallback !== undefined) {
    const parsed = ContractMetadata.safeParse(fallback, schemaCheckOptions());
    if (!parsed.success)
      throw refuseContract('contract_field_invalid', { role: 'projection', field: 'contract' });
    checked = parsed.data;
  }
  if (authored !== undefined && checked !== undefined) {
    if (authored.version !== checked.version || authored.compatibility !== checked.compatibility) {
      throw refuseContract('contract_version_mismatch', { role: 'projection', field: 'contract' });
    }
  }
  const chosen = authored ?? checked;
  if (chosen === undefined)
    throw refuseContract('contract_version_missing', { role: 'projection', field: 'contract' });
  return { version: chosen.version, compatibility: chosen.compatibility };
}

/**
 * Seals the projection of a validated resource: profile, resource envelope
 * (kind and stable authored id), contract metadata and the content built from
 * the validated project graph. Nothing else of the authored resource is read.
 */
export function constructProjection(
  resource: Validated<SourceResource> | Validated<ModelResource> | Validated<SemanticModelResource>,
  built: BuiltContent<ProjectionPayload['content']>,
  fallback: ContractFallback | undefined,
): SealedProjection {
  if (!isValidatedResource(resource)) throw refuseContract('contract_not_validated', { role: 'projection' });
  const payload = {
    profile: PROFILE,
    resource: { kind: resource.kind, id: resource.id },
    contract: resolveContract(resource.contract, fallback),
    content: built.content,
  } as ProjectionPayload;
  return sealPayload(payload);
}
