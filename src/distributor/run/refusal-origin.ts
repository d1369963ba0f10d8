import type { ConfigOrigin, DestinationConfig } from '../config/types.js';
import type { DistributorReasonCode } from '../refusals.js';

/**
 * Where in the configuration a destination's refusal points
 * (docs/distributor.md#reading-an-error): at the key of the one setting it
 * is about — the `root:` that does not open, the `bucket:` that does not
 * exist, the `endpoint:` that does not answer — and at the destination's
 * entry when no single key is (a lock, a bundle path, a failed write;
 * credentials, which are never in the file). Absent for a configuration
 * built in code.
 */
export function refusalOrigin(
  destination: DestinationConfig,
  code: DistributorReasonCode,
  field?: string,
): ConfigOrigin | undefined {
  return settingOrigin(destination, code, field) ?? destination.origin;
}

/** The key a refusal of `code` at this destination is about, when it is written; else undefined. */
function settingOrigin(
  destination: DestinationConfig,
  code: DistributorReasonCode,
  field: string | undefined,
): ConfigOrigin | undefined {
  if (code === 'backend_unavailable') return destination.kind_origin;
  // A published bundle around every bundle of the destination: its root, work_dir or prefix is what to change.
  if (
    code === 'destination_nested_bundle' &&
    (field === 'root' || field === 'work_dir' || field === 'prefix')
  )
    return destination.kind === 'local'
      ? field === 'work_dir'
        ? destination.work_dir_origin
        : destination.root_origin
      : destination.prefix_origin;
  if (destination.kind === 'local') {
    switch (code) {
      case 'destination_root_unavailable':
        return destination.root_origin;
      case 'work_dir_unavailable':
      case 'work_dir_other_filesystem':
        return destination.work_dir_origin;
      default:
        return undefined;
    }
  }
  switch (code) {
    case 'destination_bucket_missing':
    case 'destination_versioning_unsupported':
      return destination.bucket_origin;
    case 'destination_access_denied':
      return destination.prefix_origin;
    // The store the request went to: its endpoint, or without one the region it is found by.
    case 'destination_unreachable':
    case 'destination_credentials_refused':
    case 'destination_conditional_writes_unsupported':
      return destination.endpoint_origin ?? destination.region_origin;
    default:
      return undefined;
  }
}
