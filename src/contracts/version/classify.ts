import type { Sha256Prefixed } from '../../core/digest/index.js';
import { canonicalize } from '../../core/json/index.js';
import { Refusal, refuseInternal } from '../../core/refusal/index.js';
import { type ContractRefusalCode, refuseContract } from '../authoring/refusals.js';
import { decodeProjection } from '../canonical/decode.js';
import { ChangeList, type ContractChange } from './changes.js';
import { compareChecks } from './compare-checks.js';
import { compareFields } from './compare-fields.js';
import { compareSemantic } from './compare-semantic.js';
import { refuseContractVersion } from './refusals.js';
import type { ContractVerdict } from './verdict.js';
import { worstVerdict } from './verdict.js';
import type { ModelView, PayloadView, SemanticView, SourceView } from './views.js';

type Kind = PayloadView['resource']['kind'];
type Compatibility = PayloadView['contract']['compatibility'];

export interface ContractClassification {
  readonly resource: { readonly kind: Kind; readonly id: string };
  readonly baseline: { readonly version: string; readonly compatibility: Compatibility };
  readonly candidate: { readonly version: string; readonly compatibility: Compatibility };
  /** The most harmful verdict among the changes; `identical` exactly when the bytes are equal. */
  readonly verdict: ContractVerdict;
  /** Sorted by path, then rule. */
  readonly changes: readonly ContractChange[];
}

export interface ClassifyOptions {
  /** When given, each side's bytes must have this SHA-256 (checked by the decoder). */
  readonly baselineDigest?: Sha256Prefixed;
  readonly candidateDigest?: Sha256Prefixed;
}

/** Partial order of promises: full ⊇ backward, forward ⊇ none. */
const PROMISES: Readonly<Record<Compatibility, readonly Compatibility[]>> = {
  none: ['none'],
  backward: ['none', 'backward'],
  forward: ['none', 'forward'],
  full: ['none', 'backward', 'forward', 'full'],
};

function decodeSide(bytes: Uint8Array, role: 'baseline' | 'candidate', digest?: Sha256Prefixed): PayloadView {
  try {
    return decodeProjection(bytes, digest);
  } catch (error: unknown) {
    // Same code, but naming which side failed.
    if (error instanceof Refusal) {
      throw refuseContract(error.code as ContractRefusalCode, {
        role,
        ...(error.location === undefined ? {} : { location: error.location }),
        ...(error.hint === undefined ? {} : { hint: error.hint }),
      });
    }
    throw error;
  }
}

/**
 * The version classifier: a pure function over two already-canonical byte
 * strings. Both are decoded by the publication decoder (closed schema,
 * canonical encoding, normal form); nothing is projected, serialized or
 * hashed here. The verdict protects readers: see the rule table in
 * `rules.ts` and docs/contracts.md.
 */
export function classifyContractVersion(
  baselineBytes: Uint8Array,
  candidateBytes: Uint8Array,
  options: ClassifyOptions = {},
): ContractClassification {
  const baseline = decodeSide(baselineBytes, 'baseline', options.baselineDigest);
  const candidate = decodeSide(candidateBytes, 'candidate', options.candidateDigest);
  if (baseline.resource.kind !== candidate.resource.kind || baseline.resource.id !== candidate.resource.id) {
    throw refuseContractVersion('contract_classify_resource_mismatch', {
      role: 'candidate',
      field: 'resource',
    });
  }
  const identical = Buffer.from(baselineBytes).equals(Buffer.from(candidateBytes));
  const changes = new ChangeList();
  if (!identical) compare(baseline, candidate, changes);
  const sorted = changes.sorted();
  // Different bytes always differ somewhere the comparisons look: an empty list would be a bug.
  if (!identical && sorted.length === 0) throw refuseInternal('internal_error');
  return Object.freeze({
    resource: { kind: candidate.resource.kind, id: candidate.resource.id },
    baseline: { version: baseline.contract.version, compatibility: baseline.contract.compatibility },
    candidate: { version: candidate.contract.version, compatibility: candidate.contract.compatibility },
    verdict: sorted.reduce<ContractVerdict>(
      (worst, change) => worstVerdict(worst, change.verdict),
      'identical',
    ),
    changes: sorted,
  });
}

function compare(baseline: PayloadView, candidate: PayloadView, changes: ChangeList): void {
  if (baseline.contract.version !== candidate.contract.version)
    changes.add('contract.version', 'version_changed');
  const before = baseline.contract.compatibility;
  const after = candidate.contract.compatibility;
  if (before !== after) {
    const keeps = PROMISES[after].includes(before);
    changes.add('contract.compatibility', keeps ? 'compatibility_strengthened' : 'compatibility_weakened');
  }
  // Both sides have one kind (checked by the caller); the schema ties each kind to its content shape.
  switch (candidate.resource.kind) {
    case 'SemanticModel':
      compareSemantic(baseline.content as SemanticView, candidate.content as SemanticView, changes);
      return;
    case 'Source':
      compareFields(
        (baseline.content as SourceView).fields,
        (candidate.content as SourceView).fields,
        changes,
      );
      return;
    case 'Model': {
      const before = baseline.content as ModelView;
      const after = candidate.content as ModelView;
      compareFields(before.fields, after.fields, changes);
      compareChecks(before.checks, after.checks, changes);
      // The AST is canonical JSON already: equal trees have equal encodings.
      if (canonicalize(before.sql) !== canonicalize(after.sql)) changes.add('content.sql', 'sql_changed');
    }
  }
}
