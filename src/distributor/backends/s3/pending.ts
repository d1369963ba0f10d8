import { canonicalize, isJsonObject, type JsonValue, parseStrict } from '../../../core/json/index.js';
import { parseInstant } from '../../model/instant.js';
import { requireExactKeys } from '../../model/manifest.js';
import type { BundlePath, Instant } from '../../model/types.js';
import { pathProblem } from '../../path/bundle-path.js';
import { refuseDistributor } from '../../refusals.js';
import { sortedUnique } from './keys.js';

/**
 * The pending marker of an S3 bundle prefix (docs/distributor.md, "S3: the
 * pending marker"). Before its first write a run creates
 * `.distributor.pending.json` listing every key it may write or delete under
 * the bundle prefix; the state `.distributor.json` is written after every
 * output; the marker is deleted last. Whatever a crash leaves is therefore
 * named by a marker of ours and is never "unmanaged".
 *
 * The marker is also a lease: `run` identifies its holder and `expires` ends
 * the holder's claim. A run takes over another run's marker (a crashed one)
 * only after `expires`; the holder renews the lease while it works, so a live
 * run is never overtaken and two runs never write outputs of one bundle at the
 * same time. All marker writes are conditional (`If-None-Match: *` to create,
 * `If-Match: <ETag>` to renew or take over).
 */
export const PENDING_FILE = '.distributor.pending.json';

/** One marker lists at most one bundle's outputs twice over (old and new); anything larger is not ours. */
export const PENDING_MAX_BYTES = 64 * 1024 * 1024;

export interface PendingMarker {
  readonly schema_version: 1;
  /** 32 lowercase hex characters, random per run. */
  readonly run: string;
  /** End of the holder's lease (UTC). */
  readonly expires: Instant;
  /** Bundle-relative keys the holder (or a run it took over from) may have written: sorted, unique. */
  readonly outputs: readonly BundlePath[];
}

const RUN_ID = /^[0-9a-f]{32}$/;
const invalid = () => refuseDistributor('destination_state_invalid', { role: 'pending_marker' });

/** Strict: exactly the four fields, sorted unique safe paths. Anything else was not written by sealkit. */
export function parsePending(bytes: Uint8Array): PendingMarker {
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: PENDING_MAX_BYTES, maxDepth: 4 });
  } catch {
    throw invalid();
  }
  if (!isJsonObject(value)) throw invalid();
  requireExactKeys(value, ['schema_version', 'run', 'expires', 'outputs'], invalid);
  const { schema_version, run, expires, outputs } = value;
  if (schema_version !== 1 || typeof run !== 'string' || !RUN_ID.test(run)) throw invalid();
  const instant = typeof expires === 'string' ? parseInstant(expires) : undefined;
  if (instant === undefined || instant !== expires || !Array.isArray(outputs)) throw invalid();
  const paths: BundlePath[] = [];
  for (const path of outputs as readonly JsonValue[]) {
    if (typeof path !== 'string' || pathProblem(path) !== undefined) throw invalid();
    paths.push(path as BundlePath);
  }
  const normal = sortedUnique(paths);
  if (normal.length !== paths.length || normal.some((path, index) => path !== paths[index])) throw invalid();
  return { schema_version: 1, run, expires: instant, outputs: normal };
}

/** RFC 8785 bytes plus LF: one encoding, so equal markers are equal objects. */
export function serializePending(marker: PendingMarker): Uint8Array {
  const text = canonicalize({
    schema_version: marker.schema_version,
    run: marker.run,
    expires: marker.expires,
    outputs: sortedUnique(marker.outputs),
  });
  return Buffer.from(`${text}\n`, 'utf8');
}
