import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BundlePaths,
  MAX_AGE,
  type MutableBundle,
  NOW,
  retailBundle,
  writeBundle,
} from '../../src/migration/testing/bundles.js';
import type { ScaffoldOptions } from '../../src/scaffold/run.js';
import { runCli } from './cli.js';
import { snapshotTree } from './edition-trees.js';

export type Edition = 'bigquery' | 'snowflake';
export const EDITIONS: readonly Edition[] = ['bigquery', 'snowflake'];
export const PROJECT_DIR = { bigquery: '.', snowflake: 'kit' } as const;
export const SOURCE_ID = 'shop';
/** The alias `retailBundle` records in both artifacts. */
export const BINDING_ALIAS = 'synthetic_retail';

/**
 * A scratch area for scaffold tests: real client workspaces made by
 * `sealkit edition new` (once per edition, then copied with their modes)
 * and real owner-only evidence files. Everything lives under one private
 * temporary directory that `dispose` removes, read-only leftovers included.
 */
export class ScaffoldScratch {
  readonly base: string;
  readonly #templates = new Map<Edition, string>();
  #counter = 0;

  constructor(label: string) {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), `sealkit-scaffold-${label}-`)));
  }

  /** A fresh directory under the scratch area. */
  dir(name = 'case'): string {
    this.#counter += 1;
    const path = join(this.base, `${name}-${this.#counter}`);
    mkdirSync(path, { mode: 0o700 });
    return path;
  }

  /** A fresh client workspace of the edition, with its project directory. */
  workspace(edition: Edition): { readonly workspace: string; readonly project: string } {
    let template = this.#templates.get(edition);
    if (template === undefined) {
      template = join(this.base, `template-${edition}`);
      // The built CLI, as a user makes a workspace (synchronous, so fixtures stay synchronous).
      const created = runCli(['edition', 'new', '--edition', edition, template]);
      if (created.status !== 0) throw new Error('the template workspace was not created');
      this.#templates.set(edition, template);
    }
    const workspace = join(this.dir('ws'), 'client');
    cpSync(template, workspace, { recursive: true, preserveTimestamps: false });
    return { workspace, project: join(workspace, PROJECT_DIR[edition]) };
  }

  /** Synthetic evidence for the edition's destination (or a mutated bundle), written as the loader would. */
  evidence(edition: Edition, bundle: MutableBundle = retailBundle({ destination: edition })): BundlePaths {
    return writeBundle(join(this.dir('evidence'), 'bundle'), bundle);
  }

  /** A workspace and matching evidence, and the library options that scaffold them. */
  fixture(edition: Edition, options: { readonly bundle?: MutableBundle } = {}): ScaffoldFixture {
    const { workspace, project } = this.workspace(edition);
    const evidence = this.evidence(edition, options.bundle);
    return new ScaffoldFixture(edition, workspace, project, evidence);
  }

  dispose(): void {
    makeWritable(this.base);
    rmSync(this.base, { recursive: true, force: true });
  }
}

export class ScaffoldFixture {
  constructor(
    readonly edition: Edition,
    readonly workspace: string,
    readonly project: string,
    readonly evidence: BundlePaths,
  ) {}

  get output(): string {
    return join(this.project, 'models', 'migration', 'generated', SOURCE_ID);
  }

  get stagingRoot(): string {
    return join(this.project, '.scaffold-staging');
  }

  get staging(): string {
    return join(this.stagingRoot, SOURCE_ID);
  }

  /** Library options for a run at the fixed clock the evidence was made for. */
  options(overrides: Partial<ScaffoldOptions> = {}): ScaffoldOptions {
    return {
      edition: this.edition,
      workspace: this.workspace,
      sourceId: SOURCE_ID,
      mappingFile: this.evidence.mappingFile,
      inventoryFile: this.evidence.dryRunFile,
      runManifestFile: this.evidence.runManifestFile,
      sourceBindingId: BINDING_ALIAS,
      maxEvidenceAge: MAX_AGE,
      now: NOW,
      ...overrides,
    };
  }

  /** The same run on the command line (the real clock: a maximum age covering the fixed finish time). */
  cliArgs(extra: readonly string[] = []): string[] {
    return [
      'scaffold',
      '--edition',
      this.edition,
      '--workspace',
      this.workspace,
      '--source-id',
      SOURCE_ID,
      '--mapping-file',
      this.evidence.mappingFile,
      '--inventory-file',
      this.evidence.dryRunFile,
      '--run-manifest',
      this.evidence.runManifestFile,
      '--source-binding-id',
      BINDING_ALIAS,
      '--max-evidence-age',
      '36500d',
      ...extra,
    ];
  }

  /** Every entry of the workspace with modes and hashes (symlinks not followed). */
  snapshot(exclude: readonly string[] = []): Map<string, string> {
    return snapshotTree(this.workspace, exclude);
  }
}

/** `chmod -R u+rwx`: sealed test leftovers must not block cleanup. */
export function makeWritable(path: string): void {
  spawnSync('chmod', ['-R', 'u+rwx', path]);
}

export { MAX_AGE, NOW };
