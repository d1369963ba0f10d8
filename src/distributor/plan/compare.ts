import type { InPlaceObject } from '../backend.js';
import { compareInstants } from '../model/instant.js';
import type { BundlePath, DestinationState, OutputRecord, SourceManifest } from '../model/types.js';
import type { DistributorReasonCode, DistributorRefusalCode } from '../refusals.js';
import type { ExpectedOutput } from './outputs.js';
import type { EntryKind, ReplaceReason, StateToken } from './types.js';

/** What the planner knows about one destination bundle path: pure data, no handles. */
export type SnapshotView =
  | {
      readonly kind: 'empty';
      readonly residue: readonly BundlePath[];
      /** A write here would be refused with this code (the folder it goes in is not writable). */
      readonly unwritable?: DistributorReasonCode;
    }
  | { readonly kind: 'unmanaged'; readonly firstEntry?: string }
  | {
      readonly kind: 'managed';
      readonly state: DestinationState;
      readonly token: StateToken;
      readonly unlisted: boolean;
      readonly firstUnlisted?: string;
      readonly missing: boolean;
      readonly firstMissing?: string;
      /** The size the first missing output has at the destination, when it is there with another size. */
      readonly firstMissingSize?: number;
      /** Compared by content: the first missing output has the size the state records, but other bytes. */
      readonly firstMissingContent?: boolean;
      /** Some listed output is there with another size (or, compared by content, other bytes) than the state records: written over, not deleted. */
      readonly writtenOver?: boolean;
      readonly unlistedCount?: number;
      readonly firstUnlistedKind?: EntryKind;
      readonly missingCount?: number;
      readonly firstMissingKind?: EntryKind;
      readonly firstMissingGenerated?: boolean;
      readonly residue: readonly BundlePath[];
      /** What a replacement may leave where it is (S3; see InPlaceObject in the backend interface). */
      readonly inPlace?: readonly InPlaceObject[];
      readonly unwritable?: DistributorReasonCode;
    }
  | {
      readonly kind: 'refused';
      readonly reason_code: DistributorReasonCode;
      /** The entry (its path in the bundle) the refusal is about, when it is one. */
      readonly entry_path?: string;
    };

export type Decision =
  | { readonly outcome: 'published' }
  | {
      readonly outcome: 'replaced';
      readonly previous: DestinationState;
      readonly token: StateToken;
      readonly reason?: ReplaceReason;
    }
  | { readonly outcome: 'skipped_same' | 'skipped_newer' }
  | { readonly outcome: 'conflict'; readonly reason_code: DistributorRefusalCode }
  | { readonly outcome: 'refused'; readonly reason_code: DistributorReasonCode };

/**
 * The destination comparison rules, in their order (docs/distributor.md#outcomes):
 * no state + empty → publish; no state + non-empty → unmanaged (refused);
 * same normalized manifest → skip; same id, destination older → replace;
 * same id, destination newer → skip; same id and created, different digest →
 * conflict; different id → conflict. Three safety rules come on top: a
 * replacement is refused when the managed path holds unlisted entries (never
 * swept), and "already published" is refused when outputs the state lists
 * are gone (the destination was damaged; skipping would hide it), and the
 * same manifest beside residue of an interrupted run of ours is published
 * again (`replace`), which completes that run's cleanup.
 *
 * A fourth is sealkit's own too (docs/distributor.md#outcomes): when the manifest is the same but the
 * outputs the configuration asks for (`expected`) differ from those the
 * state lists — `html` or `assets` turned on or off, another `lang`, a page
 * rendered differently — the bundle is replaced (reason `outputs_changed`)
 * through the same atomic exchange, subject to the same safety rules.
 * Without `expected` outputs are not compared. An expected page whose digest
 * is not known yet (before validation) counts as unchanged.
 */
export function decide(
  manifest: SourceManifest,
  view: SnapshotView,
  expected?: readonly ExpectedOutput[],
  publisher?: Publisher,
): Decision {
  // Outputs that select no file of the bundle (`assets` only, and a bundle
  // of Markdown) would publish a folder holding nothing but its state, and
  // report it published: refused instead, whatever the destination holds
  // (docs/distributor.md#outcomes). A destination that could not be read is
  // said first, as for every other bundle there.
  if (expected !== undefined && expected.length === 0 && view.kind !== 'refused')
    return { outcome: 'refused', reason_code: 'outputs_empty' };
  const decision = decideOutcome(manifest, view, expected, publisher);
  // A write the destination cannot take is refused at planning, in the dry
  // run as in the run itself, instead of failing when it is applied.
  const unwritable = view.kind === 'empty' || view.kind === 'managed' ? view.unwritable : undefined;
  return unwritable !== undefined && (decision.outcome === 'published' || decision.outcome === 'replaced')
    ? { outcome: 'refused', reason_code: unwritable }
    : decision;
}

/** The pipeline and destination a run publishes for, as a state records them. */
export interface Publisher {
  readonly pipeline_id: string;
  readonly destination_id: string;
}

function decideOutcome(
  manifest: SourceManifest,
  view: SnapshotView,
  expected?: readonly ExpectedOutput[],
  publisher?: Publisher,
): Decision {
  switch (view.kind) {
    case 'empty':
      return { outcome: 'published' };
    case 'unmanaged':
      return { outcome: 'refused', reason_code: 'destination_unmanaged' };
    case 'refused':
      return { outcome: 'refused', reason_code: view.reason_code };
    case 'managed':
      break;
  }
  const published = view.state.source.manifest;
  if (sameManifest(published, manifest)) {
    // Residue of ours beside a state that already matches: a run was killed
    // after its commit, before its cleanup (S3: state written, pending marker
    // and old objects still there). Publishing the same bundle again over it
    // finishes that cleanup; skipping would leave it forever.
    if (view.residue.length > 0)
      return { outcome: 'replaced', previous: view.state, token: view.token, reason: 'interrupted_run' };
    if (view.missing) return { outcome: 'refused', reason_code: 'destination_incomplete' };
    if (expected === undefined || sameOutputs(view.state.outputs, expected))
      return { outcome: 'skipped_same' };
    if (view.unlisted) return { outcome: 'refused', reason_code: 'destination_unlisted_entry' };
    // The same bundle with other outputs, published by another pipeline or
    // destination: two destinations share this place (two configuration
    // files, or one store under two names) and would replace each other's
    // outputs on every run, each reporting success. Said instead of done
    // (docs/distributor.md#outcomes). Without a publisher (a caller that only
    // asks whether the bundle may be written) this is not checked.
    if (publisher !== undefined && !samePublisher(view.state, publisher))
      return { outcome: 'conflict', reason_code: 'conflict_other_destination' };
    return { outcome: 'replaced', previous: view.state, token: view.token, reason: 'outputs_changed' };
  }
  if (published.id !== manifest.id) return { outcome: 'conflict', reason_code: 'conflict_different_id' };
  const order = compareInstants(published.created, manifest.created);
  if (order > 0) return { outcome: 'skipped_newer' };
  if (order === 0) return { outcome: 'conflict', reason_code: 'conflict_same_created' };
  if (view.unlisted) return { outcome: 'refused', reason_code: 'destination_unlisted_entry' };
  // A replacement removes the outputs the state lists: one that someone
  // wrote over (edited by hand, another tool) holds bytes sealkit did not
  // write, and is not removed without a word (docs/distributor.md#outcomes).
  if (view.writtenOver === true) return { outcome: 'refused', reason_code: 'destination_incomplete' };
  // Said, not decided: a newer `created` replaces the bundle as it always
  // did, but a nightly job that writes every manifest anew replaces every
  // bundle every night, and the report should show that nothing else changed
  // (docs/distributor.md#outcomes).
  // Over the same files with other outputs asked for, those are what changed.
  const reason =
    published.digest !== manifest.digest
      ? undefined
      : expected !== undefined && !sameOutputs(view.state.outputs, expected)
        ? ('outputs_changed' as const)
        : ('same_files' as const);
  return {
    outcome: 'replaced',
    previous: view.state,
    token: view.token,
    ...(reason === undefined ? {} : { reason }),
  };
}

function samePublisher(state: DestinationState, publisher: Publisher): boolean {
  return state.pipeline_id === publisher.pipeline_id && state.destination_id === publisher.destination_id;
}

/** Exact equality of two normalized manifests, field by field (the model holds nothing else). */
export function sameManifest(a: SourceManifest, b: SourceManifest): boolean {
  if (
    a.schema_version !== b.schema_version ||
    a.id !== b.id ||
    a.digest !== b.digest ||
    a.created !== b.created
  ) {
    return false;
  }
  if (a.files.length !== b.files.length) return false;
  return a.files.every((file, index) => {
    const other = b.files[index];
    return (
      other !== undefined &&
      file.path === other.path &&
      file.sha256 === other.sha256 &&
      file.size === other.size
    );
  });
}

/**
 * Whether the published outputs are the expected ones, record by record
 * (both sorted by UTF-8 path): path, kind, source path, transform, digest
 * and size. An expected digest or size not known yet matches any.
 */
export function sameOutputs(
  published: readonly OutputRecord[],
  expected: readonly ExpectedOutput[],
): boolean {
  if (published.length !== expected.length) return false;
  return published.every((output, index) => {
    const want = expected[index];
    return (
      want !== undefined &&
      output.path === want.path &&
      output.kind === want.kind &&
      output.source_path === want.source_path &&
      output.transform === want.transform &&
      (want.sha256 === undefined || output.sha256 === want.sha256) &&
      (want.size === undefined || output.size === want.size)
    );
  });
}
