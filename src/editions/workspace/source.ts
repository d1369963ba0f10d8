import { join } from 'node:path';
import { Dir, isFsError } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { type EditionId, STARTER_EDITIONS } from '../editions.js';
import { refuseEdition } from '../refusals.js';
import { readTree, type Tree, TreeReadError } from '../tree.js';

/** An edition as read from the installation, `.ci/` folders already left out. */
export interface EditionSource {
  readonly edition: EditionId;
  readonly tree: Tree;
  /** The `.ci` folders that were left out, relative to the edition root. */
  readonly skipped: readonly string[];
}

/** Editions are small starter projects; anything far larger is not an edition. */
export const EDITION_LIMITS = {
  maxFiles: 2_000,
  maxTotalBytes: 64 * 1024 * 1024,
  maxFileBytes: 8 * 1024 * 1024,
  maxDepth: 16,
} as const;

/**
 * Folders named `.ci` hold CI-only files (the placeholder dbt profile);
 * they never reach a client workspace, at any depth.
 */
export function isSkippedInWorkspace(path: string): boolean {
  return path.split('/').includes('.ci');
}

export function readEditionSource(editionsRoot: string, edition: EditionId): EditionSource {
  const skipped: string[] = [];
  return guardRefusals(
    () => {
      let root: Dir;
      try {
        root = Dir.open(join(editionsRoot, STARTER_EDITIONS[edition].folder));
      } catch (error: unknown) {
        if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR'))
          throw refuseEdition('edition_source_missing');
        throw refuseEdition('edition_source_invalid');
      }
      try {
        const tree = readTree(root, {
          limits: EDITION_LIMITS,
          skip: (path) => {
            if (!isSkippedInWorkspace(path)) return false;
            if (path.endsWith('/.ci') || path === '.ci') skipped.push(path);
            return true;
          },
        });
        return { edition, tree, skipped: skipped.sort() };
      } catch (error: unknown) {
        if (error instanceof TreeReadError) throw refuseEdition('edition_source_invalid');
        throw error;
      } finally {
        root.close();
      }
    },
    () => refuseEdition('edition_source_invalid'),
  );
}
