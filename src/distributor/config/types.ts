import type { OutputCategories } from '../model/types.js';

/** `sealkit.distributor.yaml`, after strict validation (docs/distributor.md, "Configuration"). */
export interface DistributorConfig {
  readonly pipelines: readonly PipelineConfig[];
}

/**
 * Where an item is written in the configuration file, so that a refusal about
 * it can say so (docs/distributor.md#reading-an-error). Absent for a
 * configuration built in code.
 */
export interface ConfigOrigin {
  /** The configuration file as the user named it (`--config` value, or the default name). */
  readonly path?: string;
  readonly line: number;
  readonly column: number;
  /** The item's key path, e.g. `pipelines[0].destinations[1]`. */
  readonly pointer: string;
}

export interface PipelineConfig {
  readonly id: string;
  readonly source: {
    /** Absolute, resolved against the configuration file's directory when written relative. */
    readonly root: string;
    /**
     * The root as refusals show it: as written when absolute, else joined onto
     * the directory of the configuration path as the user named it.
     */
    readonly shown?: string;
    /** The root as the configuration writes it (`../reports`), for hints in the file's own terms. */
    readonly written?: string;
    /** Where `root:` is written: a refusal about the root itself points there. */
    readonly root_origin?: ConfigOrigin;
  };
  readonly destinations: readonly DestinationConfig[];
  readonly origin?: ConfigOrigin;
}

export type DestinationConfig = LocalDestinationConfig | S3DestinationConfig;

export interface LocalDestinationConfig {
  readonly id: string;
  readonly kind: 'local';
  /** Where `kind:` is written: a kind this build cannot serve (`backend_unavailable`) points there. */
  readonly kind_origin?: ConfigOrigin;
  /** Absolute, resolved like the source root. */
  readonly root: string;
  /** The root as refusals show it, like the source root's `shown`. */
  readonly shown_root?: string;
  /** The root as the configuration writes it, like the source root's `written`. */
  readonly written_root?: string;
  /** Where `root:` is written: a refusal about the root itself points there. */
  readonly root_origin?: ConfigOrigin;
  /**
   * Where the work area (`.distributor.work/`: lock, snapshot, staging) is
   * kept instead of the root: an existing directory on the root's filesystem
   * and mount, outside every destination root. Absolute, resolved like the
   * root. Absent: the root itself.
   */
  readonly work_dir?: string;
  /** The work_dir as refusals show it, like `shown_root`. */
  readonly shown_work_dir?: string;
  /** The work_dir as the configuration writes it, like `written_root`. */
  readonly written_work_dir?: string;
  /** Where `work_dir:` is written: a refusal about the work_dir points there. */
  readonly work_dir_origin?: ConfigOrigin;
  readonly outputs: OutputCategories;
  readonly origin?: ConfigOrigin;
}

/** Credentials never appear here: the AWS SDK's standard provider chain supplies them. */
export interface S3DestinationConfig {
  readonly id: string;
  readonly kind: 's3';
  /** Where `kind:` is written, as for a local destination. */
  readonly kind_origin?: ConfigOrigin;
  readonly bucket: string;
  /** Where `bucket:` is written: a bucket that does not exist, or is versioned, points there. */
  readonly bucket_origin?: ConfigOrigin;
  /** Key prefix of the destination root; '' or ending without a slash (the backend joins with '/'). */
  readonly prefix: string;
  /** Where `prefix:` is written: access denied under it, or a prefix another destination shares, points there. */
  readonly prefix_origin?: ConfigOrigin;
  readonly endpoint?: string;
  /** Where `endpoint:` is written: a store that does not answer, refuses the credentials or ignores conditional writes points there. */
  readonly endpoint_origin?: ConfigOrigin;
  readonly region?: string;
  /** Where `region:` is written: without an endpoint, the store is found by it, so its refusals point there instead. */
  readonly region_origin?: ConfigOrigin;
  readonly force_path_style?: boolean;
  /** `Cache-Control` of every object written; default `no-cache` (docs/distributor.md, "Object headers"). */
  readonly cache_control?: string;
  /** Seconds to wait for a TCP/TLS connection (default 5). */
  readonly connect_timeout_seconds?: number;
  /** Seconds a request may go without a byte from the store before it is abandoned (default 30). */
  readonly request_timeout_seconds?: number;
  readonly outputs: OutputCategories;
  readonly origin?: ConfigOrigin;
}
