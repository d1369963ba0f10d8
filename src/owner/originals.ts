import { type Sha256Hex, sha256Hex } from '../core/digest/index.js';
import { type ActivationAttemptValue, prepareAttempt, validateAttempt } from './attempt.js';
import {
  type CanonicalCodec,
  canonicalBytes,
  cloneData,
  decodeCanonical,
  guardScoped,
  readExpectedSha256,
  valueToCanonical,
} from './canonical.js';
import { type CompositionGrantValue, validateGrant } from './grant.js';
import { MAX_ORIGINAL_BYTES } from './limits.js';
import { prepareOperation, type QualificationOperationValue, validateOperation } from './operation.js';
import { type QualificationOwnerValue, validateQualificationOwner } from './qualification-owner.js';
import type { Site } from './read.js';
import { type ActivationRequestValue, validateRequest } from './request.js';
import { qualificationOwnerKey } from './vocabulary.js';

export interface DecodeOptions {
  /** When given, the raw bytes must have this SHA-256 (64 lowercase hex digits). */
  readonly expectedSha256?: string;
}

function codec<T>(
  site: Site,
  at: string,
  validate: (value: unknown, site: Site, at: string) => T,
  prepare?: (parsed: unknown) => void,
): CanonicalCodec<T> {
  return {
    site,
    maxBytes: MAX_ORIGINAL_BYTES,
    validate: (value) => validate(value, site, at),
    ...(prepare === undefined ? {} : { prepare }),
  };
}

const REQUEST_CODEC = codec(
  { reason: 'scoped_execution_originals', role: 'request' },
  'request',
  validateRequest,
);
/** Which grant a caller is reading, when it knows: a refusal then names it instead of `grant`. */
export type GrantRole = 'grant' | 'qualification_grant' | 'execution_grant';

const grantCodec = (role: GrantRole) =>
  codec({ reason: 'scoped_execution_originals', role }, role, validateGrant);
const GRANT_CODECS: { readonly [R in GrantRole]: CanonicalCodec<CompositionGrantValue> } = {
  grant: grantCodec('grant'),
  qualification_grant: grantCodec('qualification_grant'),
  execution_grant: grantCodec('execution_grant'),
};
const GRANT_CODEC = GRANT_CODECS.grant;

export interface GrantDecodeOptions extends DecodeOptions {
  /** The refusal's role when the bytes are refused; `grant` when not given. */
  readonly role?: GrantRole;
}
const QUALIFICATION_OWNER_CODEC = codec(
  { reason: 'scoped_execution_originals', role: 'qualification_owner' },
  'qualification_owner',
  validateQualificationOwner,
);
const OPERATION_CODEC = codec(
  { reason: 'scoped_execution_handoff', role: 'operation' },
  'operation',
  validateOperation,
  prepareOperation,
);
const ATTEMPT_CODEC = codec(
  { reason: 'scoped_execution_attempt', role: 'attempt' },
  'attempt',
  validateAttempt,
  prepareAttempt,
);

function expected(options: DecodeOptions | undefined, role: string): Sha256Hex | undefined {
  const given = options?.expectedSha256;
  return given === undefined ? undefined : readExpectedSha256(given, role);
}

/**
 * An immutable original: a validated, deeply frozen value held in a private
 * slot. Every serialization, hash and read revalidates it through its
 * canonical bytes (the held value is read once, then decoded like any
 * input), so an instance that was forged or given an unvalidated value by a
 * subclass refuses instead of answering.
 */
abstract class CanonicalOriginal<T> {
  readonly #value: T;

  protected constructor(value: T) {
    this.#value = value;
    Object.freeze(this);
  }

  protected abstract get codec(): CanonicalCodec<T>;

  /** The revalidated value (deeply frozen). */
  get value(): T {
    const codec = this.codec;
    return decodeCanonical(
      guardScoped(codec.site, () => canonicalBytes(this.#value)),
      codec,
      undefined,
    );
  }

  /** The exact canonical bytes. */
  toBytes(): Uint8Array {
    const value = this.value;
    return guardScoped(this.codec.site, () => canonicalBytes(value));
  }

  /** SHA-256 of the canonical bytes. */
  get sha256(): Sha256Hex {
    return sha256Hex(this.toBytes());
  }

  /** A mutable, detached copy of the document (integers beyond 2^53 stay bigint). */
  toJSON(): unknown {
    return cloneData(this.value);
  }
}

/** The nonproduction activation request R. */
export class ActivationRequest extends CanonicalOriginal<ActivationRequestValue> {
  static fromBytes(raw: Uint8Array, options?: DecodeOptions): ActivationRequest {
    return new ActivationRequest(decodeCanonical(raw, REQUEST_CODEC, expected(options, 'request')));
  }
  static fromValue(value: unknown): ActivationRequest {
    return ActivationRequest.fromBytes(valueToCanonical(value, REQUEST_CODEC.site));
  }
  protected get codec(): CanonicalCodec<ActivationRequestValue> {
    return REQUEST_CODEC;
  }
}

/** A qualification or execution grant. */
export class CompositionGrant extends CanonicalOriginal<CompositionGrantValue> {
  static fromBytes(raw: Uint8Array, options?: GrantDecodeOptions): CompositionGrant {
    const role = options?.role ?? 'grant';
    return new CompositionGrant(decodeCanonical(raw, GRANT_CODECS[role], expected(options, role)));
  }
  static fromValue(value: unknown): CompositionGrant {
    return CompositionGrant.fromBytes(valueToCanonical(value, GRANT_CODEC.site));
  }
  protected get codec(): CanonicalCodec<CompositionGrantValue> {
    return GRANT_CODEC;
  }
}

/** The qualification owner whose scope the execution owner takes over. */
export class QualificationOwner extends CanonicalOriginal<QualificationOwnerValue> {
  static fromBytes(raw: Uint8Array, options?: DecodeOptions): QualificationOwner {
    return new QualificationOwner(
      decodeCanonical(raw, QUALIFICATION_OWNER_CODEC, expected(options, 'qualification_owner')),
    );
  }
  static fromValue(value: unknown): QualificationOwner {
    return QualificationOwner.fromBytes(valueToCanonical(value, QUALIFICATION_OWNER_CODEC.site));
  }
  /** `qualification:<run id>`. */
  get ownerKey(): string {
    return qualificationOwnerKey(this.value.qualification_run_id);
  }
  protected get codec(): CanonicalCodec<QualificationOwnerValue> {
    return QUALIFICATION_OWNER_CODEC;
  }
}

/** One qualification operation (a source-seal association embeds one). */
export class QualificationOperation extends CanonicalOriginal<QualificationOperationValue> {
  static fromBytes(raw: Uint8Array, options?: DecodeOptions): QualificationOperation {
    return new QualificationOperation(decodeCanonical(raw, OPERATION_CODEC, expected(options, 'operation')));
  }
  static fromValue(value: unknown): QualificationOperation {
    return QualificationOperation.fromBytes(valueToCanonical(value, OPERATION_CODEC.site));
  }
  protected get codec(): CanonicalCodec<QualificationOperationValue> {
    return OPERATION_CODEC;
  }
}

/** The activation attempt A. */
export class ActivationAttempt extends CanonicalOriginal<ActivationAttemptValue> {
  static fromBytes(raw: Uint8Array, options?: DecodeOptions): ActivationAttempt {
    return new ActivationAttempt(decodeCanonical(raw, ATTEMPT_CODEC, expected(options, 'attempt')));
  }
  static fromValue(value: unknown): ActivationAttempt {
    return ActivationAttempt.fromBytes(valueToCanonical(value, ATTEMPT_CODEC.site));
  }
  protected get codec(): CanonicalCodec<ActivationAttemptValue> {
    return ATTEMPT_CODEC;
  }
}
