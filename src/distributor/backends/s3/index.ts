export type { LeaseClock } from './lease.js';
export { PENDING_FILE, type PendingMarker } from './pending.js';
export { createS3Backend, DEFAULT_LEASE_MS, type S3BackendOptions } from './s3-backend.js';
