import { defineRefusals, type Refusal } from '../core/refusal/index.js';

/**
 * The fixed reasons of the scoped execution owner codec, one per part of the
 * document (docs/owner.md#reasons). Every failure of the codec, its embedded
 * originals and its comparisons is one of these; messages never quote the
 * document.
 */
export type ScopedExecutionReason =
  | 'scoped_execution_object'
  | 'scoped_execution_observation'
  | 'scoped_execution_write_binding'
  | 'scoped_execution_workload'
  | 'scoped_execution_handoff'
  | 'scoped_execution_owner'
  | 'scoped_execution_originals'
  | 'scoped_execution_attempt'
  | 'scoped_execution_document'
  | 'scoped_execution_subject';

export const refuseScopedExecution = defineRefusals<ScopedExecutionReason>({
  scoped_execution_object: {
    category: 'malformed',
    message:
      'an object or retained source ID is malformed, out of order, outside the connector and kind matrix, duplicates a declared identity or coordinate, or is not covered by its claim',
  },
  scoped_execution_observation: {
    category: 'mismatched',
    message:
      'an observation is malformed, missing, duplicated, or does not match its claim, its domain objects or the request resource',
  },
  scoped_execution_write_binding: {
    category: 'mismatched',
    message:
      'a genuine write binding is malformed, changed from its original, not injective, or does not reproduce the request write partition',
  },
  scoped_execution_workload: {
    category: 'mismatched',
    message:
      'a workload or effect is malformed, out of order, outside the qualified directional scope, or differs from the request workloads',
  },
  scoped_execution_handoff: {
    category: 'mismatched',
    message:
      'the handoff is malformed: epoch moves, source-seal associations or their qualification operations do not match the owner',
  },
  scoped_execution_owner: {
    category: 'malformed',
    message:
      'a physical claim is malformed, out of order, over the subject limit, or does not match the execution cell and the request resources',
  },
  scoped_execution_originals: {
    category: 'mismatched',
    message:
      'an embedded or supplied original (request, grant or qualification owner) is malformed or does not match the owner',
  },
  scoped_execution_attempt: {
    category: 'mismatched',
    message: 'the attempt is malformed or does not match the request, its workload or the execution epochs',
  },
  scoped_execution_document: {
    category: 'malformed',
    message:
      'the owner document is not the exact canonical dpone.composition-scoped-execution-owner.v1 form within its size bound (the bytes `sealkit json canonicalize --python` writes, with exactly the fields of the schema)',
  },
  scoped_execution_subject: {
    category: 'mismatched',
    message:
      'the expected SHA-256 is not 64 lowercase hex digits or does not match the document bytes; it is the digest of the exact canonical form (`sealkit json digest --python`), so an indented copy or one with a final newline has another',
  },
});

/** Every reason, in the order of docs/owner.md#reasons: the complete list a caller can be refused with. */
export const SCOPED_EXECUTION_REASONS: readonly ScopedExecutionReason[] = refuseScopedExecution.codes;

export type ScopedExecutionRefusal = Refusal<ScopedExecutionReason>;

export function isScopedExecutionRefusal(value: unknown): value is ScopedExecutionRefusal {
  return refuseScopedExecution.is(value);
}
