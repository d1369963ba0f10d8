import type { OutputCategories } from '../model/types.js';

/** `sealkit.distributor.yaml`, after strict validation (docs/distributor.md, "Configuration"). */
export interface DistributorConfig {
  readonly pipelines: readonly PipelineConfig[];
}

export interface PipelineConfig {
  readonly id: string;
  /** Absolute, resolved against the configuration file's directory when written relative. */
  readonly source: { readonly root: string };
  readonly destinations: readonly DestinationConfig[];
}

export type DestinationConfig = LocalDestinationConfig | S3DestinationConfig;

export interface LocalDestinationConfig {
  readonly id: string;
  readonly kind: 'local';
  /** Absolute, resolved like the source root. */
  readonly root: string;
  readonly outputs: OutputCategories;
}

/** Credentials never appear here: the AWS SDK's standard provider chain supplies them. */
export interface S3DestinationConfig {
  readonly id: string;
  readonly kind: 's3';
  readonly bucket: string;
  /** Key prefix of the destination root; '' or ending without a slash (the backend joins with '/'). */
  readonly prefix: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly force_path_style?: boolean;
  readonly outputs: OutputCategories;
}
