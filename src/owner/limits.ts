/**
 * Every bound of the owner document (docs/owner.md#limits) and of the
 * originals sealkit defines for it. A value over a bound refuses the whole
 * document: nothing is truncated or normalized into acceptance.
 */

/** The outer canonical document. */
export const MAX_OWNER_BYTES = 8 * 1024 * 1024;
/** Each embedded or supplied original (request, operation, grant, qualification owner, attempt). */
export const MAX_ORIGINAL_BYTES = 1024 * 1024;

export const OWNER_LIMITS = Object.freeze({
  claims: { min: 1, max: 256 },
  observations: { min: 1, max: 256 },
  /** Sum over claims of read-subject plus write-subject counts. */
  subjects: { min: 0, max: 8192 },
  objects: { min: 1, max: 8192 },
  workloads: { min: 1, max: 64 },
  retainedSourceIds: { min: 1, max: 8192 },
  /** Across all workloads. */
  effects: { min: 0, max: 8192 },
  /** Across all workloads. */
  writeBindings: { min: 0, max: 8192 },
  epochMoves: { min: 1, max: 256 },
  sealAssociations: { min: 1, max: 64 },
});

/** Bounds of the originals sealkit defines; independent of the owner's own limits. */
export const ORIGINAL_LIMITS = Object.freeze({
  requestResources: { min: 1, max: 256 },
  requestWorkloads: { min: 1, max: 64 },
  /** Across the request (and per attempt). */
  constituents: { min: 1, max: 8192 },
  /** Resource groups of one request workload. */
  writeGroups: { min: 1, max: 256 },
  /** Logical write hashes across the request. */
  logicalWrites: { min: 1, max: 8192 },
  /** Guard epochs of one qualification operation or attempt. */
  guardEpochs: { min: 1, max: 256 },
  grantClaims: { min: 1, max: 256 },
  grantSubjects: { min: 0, max: 8192 },
});

/** The qualification (old) epoch is 1 … 2^63 − 2; the execution (new) epoch is exactly old + 1. */
export const MIN_QUALIFICATION_EPOCH = 1n;
export const MAX_QUALIFICATION_EPOCH = 2n ** 63n - 2n;
export const MAX_EXECUTION_EPOCH = 2n ** 63n - 1n;

/** An original descriptor names a relative path of at most this many characters. */
export const MAX_DESCRIPTOR_PATH = 1024;
/** … and a file of 1 byte … 1 MiB, the bound of every original. */
export const MAX_DESCRIPTOR_SIZE = MAX_ORIGINAL_BYTES;
/** Each free-text field of an embedded DbtRelationWrite. */
export const MAX_WRITE_FIELD = 1024;
export const MAX_TRY_NUMBER = 2 ** 31 - 1;

/** Nesting depth accepted by the parser; the deepest legitimate path is 9 levels. */
export const MAX_DEPTH = 16;
/** Digits of one JSON integer; 2^63 − 1 has 19. */
export const MAX_INTEGER_DIGITS = 20;
