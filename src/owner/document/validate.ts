import { type Sha256Hex, sha256Hex } from '../../core/digest/index.js';
import { canonicalBytes } from '../canonical.js';
import { type PhysicalClaim, readClaims } from '../claim.js';
import { MAX_ORIGINAL_BYTES, OWNER_LIMITS } from '../limits.js';
import { fail, readRecord, readSha256 } from '../read.js';
import { validateRequest } from '../request.js';
import type { GuardId, ObjectId } from '../vocabulary.js';
import { prepareHandoff, readHandoff } from './handoff.js';
import { checkOwnerLimits } from './limits-pass.js';
import { OWNER_FIELDS, OWNER_SCHEMA, type ScopedExecutionOwnerValue } from './model.js';
import { readObjects } from './objects.js';
import { readObservations } from './observations.js';
import { readRetained } from './retained.js';
import { indexScope, type ScopeIndex } from './scope.js';
import { DOCUMENT, ORIGINALS, OWNER } from './sites.js';
import { readWorkloads } from './workloads.js';

/** A validated owner with the cross-reference its comparisons need. */
export interface ValidatedOwner {
  readonly value: ScopedExecutionOwnerValue;
  readonly requestSha256: Sha256Hex;
  readonly scope: ScopeIndex;
  readonly executionEpochs: ReadonlyMap<GuardId, bigint>;
}

/**
 * Checks plain owner data (parsed JSON, or a value this module produced)
 * where it is; nothing is copied or changed. Checks run in a fixed order:
 * the top-level shape, every count of the limit table, the embedded request,
 * then objects, claims, observations, retained sources, workloads and the
 * handoff; the first failure refuses the whole document.
 */
export function validateOwner(data: unknown): ValidatedOwner {
  const top = readRecord(data, OWNER_FIELDS, DOCUMENT);
  if (top.schema !== OWNER_SCHEMA) fail(DOCUMENT, 'schema');
  readSha256(top.scope_sha256, DOCUMENT, 'scope_sha256');
  checkOwnerLimits(top);

  const request = validateRequest(top.request, ORIGINALS, 'request');
  const requestBytes = canonicalBytes(request);
  if (requestBytes.length > MAX_ORIGINAL_BYTES) fail(ORIGINALS, 'request');

  const objects = readObjects(top.objects);
  const { claims, guards } = readClaims<PhysicalClaim>(
    top.claims,
    true,
    { claims: OWNER_LIMITS.claims, subjects: OWNER_LIMITS.subjects.max },
    OWNER,
    'claims',
  );
  const scope = indexScope(objects, claims, guards, request);
  const observations = readObservations(top.observations, scope, request);
  const retained = new Set<ObjectId>(readRetained(top.retained_source_ids, scope));
  readWorkloads(top.workloads, scope, retained, request);
  const handoff = readHandoff(top.handoff, scope, retained, observations);

  const executionEpochs = new Map<GuardId, bigint>();
  for (const move of handoff.epochs) executionEpochs.set(move.guard_id, BigInt(move.execution_epoch));
  return {
    value: data as ScopedExecutionOwnerValue,
    requestSha256: sha256Hex(requestBytes),
    scope,
    executionEpochs,
  };
}

/** Epochs as bigints before checking (decoder-owned data only). */
export function prepareOwner(data: unknown): void {
  if (typeof data === 'object' && data !== null) prepareHandoff((data as Record<string, unknown>).handoff);
}
