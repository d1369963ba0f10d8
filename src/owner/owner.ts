import type { Sha256Hex } from '../core/digest/index.js';
import { sha256Hex } from '../core/digest/index.js';
import {
  type CanonicalCodec,
  canonicalBytes,
  cloneData,
  decodeCanonical,
  guardScoped,
  readExpectedSha256,
  valueToCanonical,
} from './canonical.js';
import { compareAttempt, compareOriginals, type SelectedEpoch } from './document/compare.js';
import type { ScopedExecutionOwnerValue } from './document/model.js';
import { DOCUMENT } from './document/sites.js';
import { prepareOwner, type ValidatedOwner, validateOwner } from './document/validate.js';
import { MAX_OWNER_BYTES } from './limits.js';
import { ActivationAttempt, ActivationRequest, CompositionGrant, QualificationOwner } from './originals.js';
import { fail } from './read.js';
import { refuseScopedExecution } from './refusals.js';
import { executionOwnerKey, type GuardId, type WorkloadId } from './vocabulary.js';
import type { DbtRelationWrite } from './write.js';
import { logicalWriteSha256Unchecked } from './write.js';

const OWNER_CODEC: CanonicalCodec<ScopedExecutionOwnerValue> = {
  site: DOCUMENT,
  maxBytes: MAX_OWNER_BYTES,
  prepare: prepareOwner,
  validate: (value) => validateOwner(value).value,
};

/** Only this module constructs owners: every instance holds a value the validator produced. */
const CONSTRUCT: unique symbol = Symbol('ScopedExecutionOwner');

/** The existing execution owner identity: execution plus the actual activation UUID. */
export interface OwnerReference {
  readonly kind: 'execution';
  readonly activationId: string;
}

/** Everything `sealkit owner verify` reports, from one revalidation. */
export interface OwnerSummary {
  readonly ownerReference: OwnerReference;
  readonly ownerKey: string;
  /** R: SHA-256 of the embedded request's canonical bytes. */
  readonly requestSha256: Sha256Hex;
  /** E: SHA-256 of the whole owner document. */
  readonly subjectSha256: Sha256Hex;
  /** Every intended execution epoch from the handoff, ascending by guard. */
  readonly guardEpochs: readonly SelectedEpoch[];
}

/** One genuine legacy write with the workload and physical domain it is bound to. */
export interface ProjectedWrite {
  readonly workloadId: WorkloadId;
  readonly guardId: GuardId;
  readonly logicalWriteSha256: Sha256Hex;
  readonly write: DbtRelationWrite;
}

export interface RequiredOriginals {
  readonly qualificationOwner: QualificationOwner;
  readonly qualificationGrant: CompositionGrant;
  readonly executionGrant: CompositionGrant;
}

/**
 * The `dpone.composition-scoped-execution-owner.v1` document as an immutable
 * value. Its state, in a private slot, is the tree its decoder parsed from
 * the canonical bytes, checked and then deeply frozen; every serialization,
 * hash, query and comparison revalidates it (nested originals included), so
 * a forged or tampered instance refuses rather than answers.
 * It authenticates nothing: equal supplied originals are documentary facts.
 */
export class ScopedExecutionOwner {
  readonly #value: ScopedExecutionOwnerValue;

  private constructor(token: typeof CONSTRUCT, value: ScopedExecutionOwnerValue) {
    if (token !== CONSTRUCT) throw refuseScopedExecution('scoped_execution_document', { role: 'owner' });
    this.#value = value;
    Object.freeze(this);
  }

  /**
   * Decodes the exact canonical bytes of an owner document whose SHA-256 the
   * caller knows independently. Refuses (one of the scoped_execution_*
   * reasons) anything else.
   */
  static fromBytes(raw: Uint8Array, options: { readonly expectedSha256: string }): ScopedExecutionOwner {
    const expected = readExpectedSha256(
      (options as { expectedSha256?: unknown } | undefined)?.expectedSha256,
      'owner',
    );
    return new ScopedExecutionOwner(CONSTRUCT, decodeCanonical(raw, OWNER_CODEC, expected));
  }

  /**
   * Builds an owner from a JavaScript value (for producers): the value is
   * serialized to its canonical bytes, each property read once, and decoded
   * exactly as bytes would be.
   */
  static fromValue(value: unknown): ScopedExecutionOwner {
    const raw = valueToCanonical(value, DOCUMENT);
    return ScopedExecutionOwner.fromBytes(raw, { expectedSha256: sha256Hex(raw) });
  }

  // Revalidation checks the held value where it is: only this module's
  // decoder creates owners (the constructor token), so the value is always a
  // frozen tree it parsed itself. Static, so that a forged receiver reaches
  // the guard: reading its missing slot there refuses instead of throwing.
  static #validate(owner: ScopedExecutionOwner): ValidatedOwner {
    return guardScoped(DOCUMENT, () => validateOwner(owner.#value));
  }

  /** A mutable, detached copy of the complete document (epochs are bigint). */
  toJSON(): unknown {
    return cloneData(ScopedExecutionOwner.#validate(this).value);
  }

  /** The exact canonical bytes. */
  toBytes(): Uint8Array {
    const { value } = ScopedExecutionOwner.#validate(this);
    return guardScoped(DOCUMENT, () => canonicalBytes(value));
  }

  /** E: SHA-256 of the entire owner document. */
  get subjectSha256(): Sha256Hex {
    return sha256Hex(this.toBytes());
  }

  /** R: SHA-256 of the embedded request. */
  get requestSha256(): Sha256Hex {
    return ScopedExecutionOwner.#validate(this).requestSha256;
  }

  get ownerReference(): OwnerReference {
    return Object.freeze({
      kind: 'execution',
      activationId: ScopedExecutionOwner.#validate(this).value.request.activation_id,
    });
  }

  get ownerKey(): string {
    return executionOwnerKey(ScopedExecutionOwner.#validate(this).value.request.activation_id);
  }

  get guardEpochs(): readonly SelectedEpoch[] {
    return epochsOf(ScopedExecutionOwner.#validate(this));
  }

  /** The embedded request R as its own original. */
  get request(): ActivationRequest {
    const { value } = ScopedExecutionOwner.#validate(this);
    return guardScoped(DOCUMENT, () => ActivationRequest.fromBytes(canonicalBytes(value.request)));
  }

  /** Owner reference, key, R, E and guard epochs from a single revalidation. */
  describe(): OwnerSummary {
    const validated = ScopedExecutionOwner.#validate(this);
    const { value } = validated;
    const subjectSha256 = guardScoped(DOCUMENT, () => sha256Hex(canonicalBytes(value)));
    return Object.freeze({
      ownerReference: Object.freeze({
        kind: 'execution' as const,
        activationId: value.request.activation_id,
      }),
      ownerKey: executionOwnerKey(value.request.activation_id),
      requestSha256: validated.requestSha256,
      subjectSha256,
      guardEpochs: epochsOf(validated),
    });
  }

  /** The legacy write projection: every genuine write, by workload, guard and logical write hash. */
  writeProjection(): readonly ProjectedWrite[] {
    const { value, scope } = ScopedExecutionOwner.#validate(this);
    const out: ProjectedWrite[] = [];
    for (const workload of value.workloads) {
      for (const binding of workload.write_bindings) {
        out.push(
          Object.freeze({
            workloadId: workload.workload_id,
            guardId: scope.guardOf.get(binding.object_id) as GuardId,
            logicalWriteSha256: logicalWriteSha256Unchecked(binding.write),
            write: binding.write,
          }),
        );
      }
    }
    return Object.freeze(out);
  }

  /**
   * Requires the exact supplied originals: the qualification owner named by
   * the handoff, the qualification and execution grants over the owner's
   * full scope and directional claims, and the source-seal owner. Refuses
   * with scoped_execution_originals otherwise.
   */
  requireOriginals(originals: RequiredOriginals): void {
    const validated = ScopedExecutionOwner.#validate(this);
    const site = { reason: 'scoped_execution_originals', role: 'originals' } as const;
    const { qualificationOwner, qualificationGrant, executionGrant } = guardScoped(site, () => ({
      qualificationOwner: originals.qualificationOwner,
      qualificationGrant: originals.qualificationGrant,
      executionGrant: originals.executionGrant,
    }));
    if (!(qualificationOwner instanceof QualificationOwner)) fail(site, 'qualification_owner');
    if (!(qualificationGrant instanceof CompositionGrant)) fail(site, 'qualification_grant');
    if (!(executionGrant instanceof CompositionGrant)) fail(site, 'execution_grant');
    guardScoped(site, () =>
      compareOriginals(validated, {
        qualificationOwner: qualificationOwner.value,
        qualificationOwnerSha256: qualificationOwner.sha256,
        qualificationGrant: qualificationGrant.value,
        qualificationGrantSha256: qualificationGrant.sha256,
        executionGrant: executionGrant.value,
      }),
    );
  }

  /**
   * Validates the unchanged attempt A against R and the execution epochs,
   * and returns the epochs selected by all declared effects of its workload.
   */
  requireAttempt(attempt: ActivationAttempt): readonly SelectedEpoch[] {
    const validated = ScopedExecutionOwner.#validate(this);
    const site = { reason: 'scoped_execution_attempt', role: 'attempt' } as const;
    if (!(attempt instanceof ActivationAttempt)) fail(site);
    return guardScoped(site, () => compareAttempt(validated, attempt.value));
  }
}

function epochsOf(validated: ValidatedOwner): readonly SelectedEpoch[] {
  return Object.freeze(
    validated.value.handoff.epochs.map((move) =>
      Object.freeze({ guardId: move.guard_id, epoch: move.execution_epoch }),
    ),
  );
}
