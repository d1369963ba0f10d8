import type { BackendFactory } from '../backend.js';
import type { S3DestinationConfig } from '../config/types.js';

/**
 * The S3 backend built into sealkit, when present. Until it is wired here, S3
 * destinations are refused with `backend_unavailable` unless a factory is
 * passed to `distributeRun`.
 */
export const builtinS3Factory: BackendFactory<S3DestinationConfig> | undefined = undefined;
