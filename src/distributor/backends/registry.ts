import type { BackendFactory } from '../backend.js';
import type { S3DestinationConfig } from '../config/types.js';
import { createS3Backend } from './s3/index.js';

/**
 * The S3 backend built into sealkit. `distributeRun` uses it unless a factory
 * is passed (`s3Backend`); undefined would refuse S3 destinations with
 * `backend_unavailable`.
 */
export const builtinS3Factory: BackendFactory<S3DestinationConfig> | undefined = createS3Backend;
