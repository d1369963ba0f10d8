import type { Sha256Prefixed } from '../../core/digest/index.js';

declare const bundlePathBrand: unique symbol;
declare const bundleDirBrand: unique symbol;
declare const instantBrand: unique symbol;

/**
 * A file path inside a bundle that passed every path-safety rule (see
 * `path/bundle-path.ts`): relative, slash-separated, already normal (no empty,
 * `.` or `..` segment), no backslash, NUL or control character, no reserved
 * name. Only the validator mints it; a raw manifest string is never one.
 */
export type BundlePath = string & { readonly [bundlePathBrand]: true };

/**
 * A bundle directory relative to its source root (and so to every destination
 * root), slash-separated, never empty: the same rules as `BundlePath`.
 */
export type BundleDir = string & { readonly [bundleDirBrand]: true };

/**
 * An RFC 3339 timestamp normalized to UTC, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`
 * with no trailing zeros in the fraction, so equal instants have equal text
 * and text order is time order.
 */
export type Instant = string & { readonly [instantBrand]: true };

/** One `files[]` record of a source manifest. */
export interface ManifestFile {
  readonly path: BundlePath;
  readonly sha256: Sha256Prefixed;
  readonly size: number;
}

/** The normalized source manifest model (docs/distributor.md#source-bundles); unknown fields are dropped. */
export interface SourceManifest {
  readonly schema_version: 1;
  readonly id: string;
  readonly digest: Sha256Prefixed;
  readonly created: Instant;
  readonly files: readonly ManifestFile[];
}

export type OutputKind = 'source' | 'generated';
export type TransformId = 'markdown_to_html';

/** One file written by sealkit at a destination (docs/distributor.md#outputs-and-state). */
export interface OutputRecord {
  readonly path: BundlePath;
  readonly kind: OutputKind;
  readonly source_path: BundlePath;
  /** Present only for generated files. */
  readonly transform?: TransformId;
  readonly sha256: Sha256Prefixed;
  readonly size: number;
}

/** `.distributor.json`, exactly the documented shape (docs/distributor.md#outputs-and-state). */
export interface DestinationState {
  readonly schema_version: 1;
  readonly distributor_version: string;
  readonly pipeline_id: string;
  readonly destination_id: string;
  readonly published_at: Instant;
  readonly source: { readonly manifest: SourceManifest };
  readonly outputs: readonly OutputRecord[];
}

/**
 * Which categories of files a destination receives
 * (docs/distributor.md#outputs-and-state): `source`
 * copies every listed file, `html` adds a page per `.md` file, `assets`
 * copies the listed files that are neither Markdown nor HTML (implied by
 * `source`).
 */
export interface OutputCategories {
  readonly source: boolean;
  readonly html: boolean;
  /** Absent means false. */
  readonly assets?: boolean;
  /** The pages' `<html lang>` (`html: {lang: en}` in the configuration); absent: none. */
  readonly lang?: string;
}
