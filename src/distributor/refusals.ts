import { type FsRefusalCode, type PlatformRefusalCode, refuseFs, refusePlatform } from '../core/fs/index.js';
import { type InputRefusalCode, refuseInput } from '../core/input/index.js';
import { type JsonRefusalCode, refuseJson } from '../core/json/index.js';
import {
  defineRefusals,
  type InternalRefusalCode,
  type Refusal,
  refuseInternal,
  type WithDetails,
} from '../core/refusal/index.js';

/**
 * Every reason the distributor refuses something. Messages are fixed text: they
 * never name a bundle, path, id, bucket, digest, value or exception.
 */
export type DistributorRefusalCode =
  // configuration
  | 'config_not_yaml'
  | 'config_duplicate_key'
  | 'config_unsupported_yaml'
  | 'config_unknown_key'
  | 'config_missing_key'
  | 'config_wrong_type'
  | 'config_invalid_value'
  | 'config_duplicate_id'
  | 'pipeline_not_found'
  // discovery
  | 'source_root_missing'
  | 'source_root_symlink'
  | 'source_root_not_directory'
  | 'source_root_unavailable'
  | 'source_symlink'
  | 'source_not_regular'
  | 'source_dir_unreadable'
  | 'bundle_nested'
  | 'bundle_at_source_root'
  | 'bundle_dir_invalid'
  | 'bundle_dir_missing'
  | 'bundle_dir_symlink'
  | 'bundle_dir_not_directory'
  | 'bundle_dir_unavailable'
  | 'discovery_too_large'
  // manifest
  | 'manifest_missing'
  | 'manifest_exists'
  | 'manifest_write_failed'
  | 'manifest_not_regular'
  | 'manifest_unreadable'
  | 'manifest_too_large'
  | 'manifest_not_json'
  | 'manifest_not_object'
  | 'manifest_schema_version'
  | 'manifest_id_invalid'
  | 'manifest_digest_invalid'
  | 'manifest_created_invalid'
  | 'manifest_files_invalid'
  | 'manifest_file_invalid'
  | 'manifest_sha256_invalid'
  | 'manifest_size_invalid'
  // paths
  | 'path_empty'
  | 'path_too_long'
  | 'path_not_utf8'
  | 'path_control_char'
  | 'path_backslash'
  | 'path_absolute'
  | 'path_not_normalized'
  | 'path_dotdot'
  | 'path_reserved'
  | 'path_duplicate'
  | 'path_unicode_twin'
  | 'path_file_dir_clash'
  // bundle contents
  | 'file_missing'
  | 'file_symlink'
  | 'file_not_regular'
  | 'file_unreadable'
  | 'file_size_mismatch'
  | 'file_digest_mismatch'
  | 'bundle_digest_mismatch'
  | 'markdown_too_large'
  | 'markdown_not_utf8'
  | 'markdown_front_matter_invalid'
  | 'markdown_front_matter_lang_invalid'
  // planning
  | 'output_collision'
  | 'output_too_large'
  | 'output_key_too_long'
  | 'outputs_empty'
  | 'run_aborted'
  | 'run_interrupted'
  | 'conflict_different_id'
  | 'conflict_same_created'
  | 'conflict_other_destination'
  | 'skipped_newer_refused'
  // destinations
  | 'destination_roots_overlap'
  | 'destination_inside_source'
  | 'destination_root_unavailable'
  | 'destination_locked'
  | 'work_dir_unavailable'
  | 'work_dir_other_filesystem'
  | 'destination_unmanaged'
  | 'destination_state_invalid'
  | 'destination_marker_invalid'
  | 'destination_unlisted_entry'
  | 'destination_incomplete'
  | 'destination_output_unreadable'
  | 'destination_symlink'
  | 'destination_not_directory'
  | 'destination_nested_bundle'
  | 'destination_changed'
  | 'destination_write_failed'
  | 'snapshot_write_failed'
  | 'destination_unreachable'
  | 'destination_credentials_missing'
  | 'destination_region_missing'
  | 'destination_credentials_refused'
  | 'destination_access_denied'
  | 'destination_bucket_missing'
  | 'destination_conditional_writes_unsupported'
  | 'destination_versioning_unsupported'
  | 'backend_unavailable';

/** A bundle holding another: both bundle directories, relative to the source root. */
export interface NestedBundles {
  readonly bundle_dir: string;
  readonly nested_bundle_dir: string;
}

/** Which Unicode normalization form a path is written in: NFC, NFD, or neither (`mixed`). */
export type NormalizationForm = 'NFC' | 'NFD' | 'mixed';

/**
 * Two paths (or bundle folders) equal after NFC normalization: the refused
 * one first, then the one it is a twin of, each with its form, since the
 * two look alike on screen.
 */
export interface UnicodeTwinPaths {
  readonly paths: readonly { readonly path: string; readonly form: NormalizationForm }[];
}

/** One destination of the configuration. */
export interface DestinationRef {
  readonly pipeline_id: string;
  readonly destination_id: string;
}

/** Two destinations that would publish to the same place, and how (docs/distributor.md#configuration-sealkitdistributoryaml). */
export interface RootsOverlap {
  readonly relation: 'same' | 'inside' | 'contains' | 'work_in_root' | 'work_in_own_root' | 'work_shared';
  /** The destination the refusal points at (the later one in the file). */
  readonly destination: DestinationRef;
  readonly other: DestinationRef;
}

/** The codes that carry typed details (docs/refusals.md#details); printed with `--json`. */
export type DistributorRefusalDetails = WithDetails<
  DistributorRefusalCode,
  {
    bundle_nested: NestedBundles | undefined;
    destination_roots_overlap: RootsOverlap;
    path_unicode_twin: UnicodeTwinPaths | undefined;
  }
>;

export const refuseDistributor = defineRefusals<DistributorRefusalCode, DistributorRefusalDetails>({
  config_not_yaml: { category: 'malformed', message: 'the configuration is not well-formed YAML' },
  config_duplicate_key: { category: 'malformed', message: 'a mapping in the configuration repeats a key' },
  config_unsupported_yaml: {
    category: 'unsupported',
    message: 'the configuration uses YAML anchors, aliases, tags or several documents, which are refused',
  },
  config_unknown_key: { category: 'malformed', message: 'the configuration has a key sealkit does not know' },
  config_missing_key: { category: 'missing', message: 'the configuration lacks a required key' },
  config_wrong_type: { category: 'malformed', message: 'a configuration value has the wrong type' },
  config_invalid_value: { category: 'malformed', message: 'a configuration value is not allowed' },
  config_duplicate_id: {
    category: 'conflict',
    message: 'two pipelines, or two destinations of one pipeline, share an id',
  },
  pipeline_not_found: {
    category: 'missing',
    message: 'no pipeline in the configuration has the requested id',
  },

  source_root_missing: { category: 'missing', message: 'the source root does not exist' },
  source_root_symlink: {
    category: 'malformed',
    message: 'the source root, or a directory above it, is a symbolic link',
  },
  source_root_not_directory: { category: 'malformed', message: 'the source root is not a directory' },
  source_root_unavailable: {
    category: 'unavailable',
    message: 'the source root cannot be read (permission or I/O error)',
  },
  source_symlink: {
    category: 'malformed',
    message: 'the source tree holds a symbolic link; sealkit never follows one',
  },
  source_not_regular: {
    category: 'malformed',
    message: 'the source tree holds a FIFO, socket or device',
  },
  source_dir_unreadable: {
    category: 'unavailable',
    message: 'a directory in the source tree cannot be read',
  },
  bundle_nested: {
    category: 'unsupported',
    message: 'a bundle contains another bundle (nested manifest.json)',
    printDetails: true,
  },
  bundle_at_source_root: {
    category: 'unsupported',
    message:
      'the source root itself holds a manifest.json; bundles must be in subdirectories of the source root',
  },
  bundle_dir_invalid: {
    category: 'malformed',
    message: 'a bundle directory name breaks the path rules (encoding, control characters, reserved names)',
  },
  bundle_dir_missing: { category: 'missing', message: 'the bundle folder does not exist' },
  bundle_dir_symlink: {
    category: 'malformed',
    message: 'the bundle folder, or a directory above it, is a symbolic link',
  },
  bundle_dir_not_directory: { category: 'malformed', message: 'the bundle folder is not a directory' },
  bundle_dir_unavailable: {
    category: 'unavailable',
    message: 'the bundle folder cannot be read (permission or I/O error)',
  },
  discovery_too_large: {
    category: 'oversized',
    message: 'the source tree is deeper or holds more entries than the discovery limits',
  },

  manifest_missing: { category: 'missing', message: 'the bundle has no manifest.json' },
  manifest_exists: { category: 'conflict', message: 'the directory already holds a manifest.json' },
  manifest_write_failed: {
    category: 'unavailable',
    message: 'manifest.json could not be written in the bundle folder',
  },
  manifest_not_regular: {
    category: 'malformed',
    message: 'manifest.json is a symbolic link or not a regular file',
  },
  manifest_unreadable: {
    category: 'unavailable',
    message: 'manifest.json cannot be read (permission or I/O error)',
  },
  manifest_too_large: { category: 'oversized', message: 'manifest.json exceeds the size limit' },
  manifest_not_json: { category: 'malformed', message: 'manifest.json is not strict UTF-8 JSON' },
  manifest_not_object: { category: 'malformed', message: 'manifest.json does not hold a JSON object' },
  manifest_schema_version: { category: 'unsupported', message: 'the manifest schema_version is not 1' },
  manifest_id_invalid: {
    category: 'malformed',
    message: 'the manifest id is missing, not a string, blank, or holds a control character',
  },
  manifest_digest_invalid: {
    category: 'malformed',
    message: 'the manifest digest is missing or not a lowercase sha256:<64 hex> string',
  },
  manifest_created_invalid: {
    category: 'malformed',
    message: 'the manifest created is missing or not an RFC 3339 timestamp',
  },
  manifest_files_invalid: {
    category: 'malformed',
    message: 'the manifest files is missing, not an array, empty, or longer than the limit',
  },
  manifest_file_invalid: {
    category: 'malformed',
    message: 'a manifest files[] entry is not an object with path, sha256 and size',
  },
  manifest_sha256_invalid: {
    category: 'malformed',
    message: 'a files[].sha256 is not a lowercase sha256:<64 hex> string',
  },
  manifest_size_invalid: {
    category: 'malformed',
    message: 'a files[].size is not a non-negative integer',
  },

  path_empty: { category: 'malformed', message: 'a file path is empty' },
  path_too_long: {
    category: 'oversized',
    message: 'a file path exceeds 4096 bytes or one of its segments exceeds 255 bytes',
  },
  path_not_utf8: { category: 'malformed', message: 'a file name is not valid UTF-8' },
  path_control_char: { category: 'malformed', message: 'a file path contains NUL or a control character' },
  path_backslash: { category: 'malformed', message: 'a file path contains a backslash' },
  path_absolute: { category: 'malformed', message: 'a file path is absolute' },
  path_not_normalized: {
    category: 'malformed',
    message: 'a file path has an empty or "." segment or a trailing slash',
  },
  path_dotdot: { category: 'malformed', message: 'a file path has a ".." segment' },
  path_reserved: {
    category: 'malformed',
    message: 'a file path names manifest.json or a name beginning with .distributor, which are reserved',
  },
  path_duplicate: { category: 'conflict', message: 'two files have the same path' },
  path_unicode_twin: {
    category: 'conflict',
    message: 'two paths differ only in Unicode normalization (NFC/NFD)',
    printDetails: true,
  },
  path_file_dir_clash: {
    category: 'conflict',
    message: 'a file path is also used as a directory by another path',
  },

  file_missing: { category: 'missing', message: 'a file the manifest lists does not exist' },
  file_symlink: {
    category: 'malformed',
    message: 'a file the manifest lists, or one of its parent directories, is a symbolic link',
  },
  file_not_regular: { category: 'malformed', message: 'a file the manifest lists is not a regular file' },
  file_unreadable: { category: 'unavailable', message: 'a file the manifest lists cannot be read' },
  file_size_mismatch: {
    category: 'mismatched',
    message: 'a file size differs from the size the manifest lists',
  },
  file_digest_mismatch: {
    category: 'mismatched',
    message: 'a file SHA-256 differs from the digest the manifest lists',
  },
  bundle_digest_mismatch: {
    category: 'mismatched',
    message: 'the bundle digest over the listed files differs from the manifest digest',
  },
  markdown_too_large: {
    category: 'oversized',
    message: 'a Markdown file to render as HTML exceeds the size limit',
  },
  markdown_not_utf8: {
    category: 'malformed',
    message: 'a Markdown file to render as HTML is not valid UTF-8 without a byte order mark',
  },
  markdown_front_matter_invalid: {
    category: 'malformed',
    message: 'a Markdown file to render as HTML starts with front matter that is not a valid YAML mapping',
  },
  markdown_front_matter_lang_invalid: {
    category: 'malformed',
    message:
      "a Markdown file to render as HTML gives its page a language (front matter 'lang') that is not a language tag",
  },

  output_collision: {
    category: 'conflict',
    message:
      'two planned outputs of a destination have the same path, Unicode twins, or a file/directory clash',
  },
  output_too_large: {
    category: 'oversized',
    message:
      'an output is larger than the destination stores as one object (S3: 5 GiB); nothing of this bundle was written there',
  },
  output_key_too_long: {
    category: 'oversized',
    message:
      "an output's object key (prefix, bundle directory and path) exceeds the 1024 bytes S3 allows; nothing of this bundle was written there",
  },
  outputs_empty: {
    category: 'missing',
    message: 'the outputs the destination takes select no file of the bundle, so it is not published there',
  },
  run_aborted: {
    category: 'conflict',
    message: 'nothing was written: part of the run (a pipeline or a bundle) failed validation or planning',
  },
  run_interrupted: {
    category: 'unavailable',
    message:
      'the run was stopped by a signal: no new write was started; a bundle whose state was not written is not published',
  },
  conflict_different_id: {
    category: 'conflict',
    message: 'the destination holds a publication of a different bundle id',
  },
  conflict_same_created: {
    category: 'conflict',
    message: 'the destination holds the same bundle id and created time with a different digest',
  },
  conflict_other_destination: {
    category: 'conflict',
    message: 'the destination holds this bundle as another destination published it, with other outputs',
  },
  skipped_newer_refused: {
    category: 'conflict',
    message:
      'a destination holds a newer publication than the source, so a bundle was not published, and --fail-on-skipped-newer asks for none',
  },

  destination_roots_overlap: {
    category: 'conflict',
    message:
      'two destinations publish to the same place: their roots coincide or one lies inside the other (a work_dir counts too)',
    printDetails: true,
  },
  destination_inside_source: {
    category: 'conflict',
    message:
      'a destination root or work_dir lies inside a source root: the next run would take what it published for bundles to publish',
  },
  destination_root_unavailable: {
    category: 'unavailable',
    message: 'the destination root is missing, not a directory, reached through a symbolic link, or unusable',
  },
  destination_locked: {
    category: 'conflict',
    message:
      "another sealkit run is publishing here: it holds the destination's lock (local) or the bundle's pending marker (S3)",
  },
  work_dir_unavailable: {
    category: 'unavailable',
    message:
      'the work_dir of the destination is missing, not a directory, or reached through a symbolic link',
  },
  work_dir_other_filesystem: {
    category: 'unsupported',
    message: 'the work_dir of the destination is not on the filesystem and mount of its root',
  },
  destination_unmanaged: {
    category: 'conflict',
    message: 'the destination bundle path holds content without .distributor.json (unmanaged)',
  },
  destination_state_invalid: {
    category: 'malformed',
    message: 'the destination .distributor.json is not a valid state written by the distributor',
  },
  destination_marker_invalid: {
    category: 'malformed',
    message:
      'the destination .distributor.pending.json is not a pending marker written by the distributor; nothing of this bundle was written',
  },
  destination_unlisted_entry: {
    category: 'conflict',
    message: 'the managed destination holds entries its .distributor.json does not list; nothing is swept',
  },
  destination_incomplete: {
    category: 'conflict',
    message:
      'outputs that the destination .distributor.json lists are missing, or not the size or (compared by content) the SHA-256 it records',
  },
  destination_output_unreadable: {
    category: 'unavailable',
    message:
      'an output the destination .distributor.json lists could not be read to compare its SHA-256 (--checksum); nothing of this bundle was written',
  },
  destination_symlink: {
    category: 'malformed',
    message: 'the destination bundle path, or a directory above it, is a symbolic link',
  },
  destination_not_directory: {
    category: 'conflict',
    message: 'the destination bundle path, or a directory above it, is not a directory',
  },
  destination_nested_bundle: {
    category: 'conflict',
    message: 'the destination bundle path lies inside another managed bundle',
  },
  destination_changed: {
    category: 'conflict',
    message: 'the destination changed after it was inspected; nothing of this bundle was committed',
  },
  destination_write_failed: {
    category: 'unavailable',
    message: 'writing to the destination failed; nothing of this bundle was committed',
  },
  snapshot_write_failed: {
    category: 'unavailable',
    message:
      "the run's verified copy of the bundle could not be written anywhere; nothing of this bundle was published",
  },
  destination_unreachable: {
    category: 'unavailable',
    message:
      'the destination cannot be reached or did not answer in time (S3: check the endpoint, the network and the timeouts)',
  },
  destination_credentials_missing: {
    category: 'unavailable',
    message:
      'no S3 credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run where an instance role applies',
  },
  destination_region_missing: {
    category: 'missing',
    message:
      'no region is set for the S3 destination: set region: in the configuration, or AWS_REGION (or a region in the AWS profile)',
  },
  destination_credentials_refused: {
    category: 'unavailable',
    message:
      'the S3 store refused the credentials (unknown access key, wrong secret or expired token): check the keys or the profile in use',
  },
  destination_access_denied: {
    category: 'unavailable',
    message:
      'the S3 store denied access: the credentials lack permission to list, read, write or delete under the destination prefix',
  },
  destination_bucket_missing: {
    category: 'unavailable',
    message:
      'the bucket of the S3 destination does not exist: check the bucket name, the endpoint and the region',
  },
  destination_conditional_writes_unsupported: {
    category: 'unsupported',
    message:
      'the S3 store does not honour the conditional writes sealkit relies on (If-None-Match: * and If-Match); nothing was published there',
  },
  destination_versioning_unsupported: {
    category: 'unsupported',
    message:
      'the bucket has versioning enabled and this S3 store ignores conditional writes on versioned buckets; use an unversioned bucket; nothing was published there',
  },
  backend_unavailable: {
    category: 'unavailable',
    message: 'the destination kind is not available in this build or on this platform',
  },
});

/**
 * Every code a plan item, outcome or run failure may carry: the distributor's
 * own and the core ones its readers and backends pass on unchanged. Typed so
 * that a misspelt code in the planner does not compile.
 */
export type DistributorReasonCode =
  | DistributorRefusalCode
  | FsRefusalCode
  | PlatformRefusalCode
  | InputRefusalCode
  | JsonRefusalCode
  | InternalRefusalCode;

/** The code of a refusal the distributor caught; one from any other table is a bug (`internal_error`). */
export function reasonCodeOf(refusal: Refusal): DistributorReasonCode {
  if (
    refuseDistributor.is(refusal) ||
    refuseFs.is(refusal) ||
    refusePlatform.is(refusal) ||
    refuseInput.is(refusal) ||
    refuseJson.is(refusal) ||
    refuseInternal.is(refusal)
  )
    return refusal.code;
  return 'internal_error';
}
