import { createRequire } from 'node:module';
import type * as S3 from '@aws-sdk/client-s3';

/**
 * The AWS SDK's S3 client, loaded with `require` rather than `import`: the
 * package ships CommonJS as its main entry, and an ESM `import` of it makes
 * Node scan every re-exported file for its export names first, which took
 * about 130 ms more CPU per run on our machines (docs/performance.md, "distributor:
 * S3 destinations"). The classes are the same ones an `import` gives.
 */
const sdk = createRequire(import.meta.url)('@aws-sdk/client-s3') as typeof S3;

export const {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} = sdk;

export const S3Client = sdk.S3Client;
export type S3Client = S3.S3Client;
