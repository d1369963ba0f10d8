export { createS3Backend } from './lazy.js';
export type { LeaseClock } from './lease.js';
export { PENDING_FILE, type PendingMarker } from './pending.js';
export type { S3BackendOptions } from './s3-backend.js';
