import { type Sha256Hex, sha256Hex } from '../../core/digest/index.js';
import { type EditionId, STARTER_EDITIONS } from '../editions.js';
import type { EditionSource } from './source.js';

export interface WorkspaceFile {
  readonly path: string;
  readonly sha256: Sha256Hex;
  readonly bytes: number;
}

/**
 * What `edition new` will create, computed without touching the destination:
 * the same object is printed by `--dry-run` and executed by apply. Paths are
 * relative to the workspace root and sorted; modes are owner-only because the
 * workspace will hold the client's own models and evidence.
 */
export interface WorkspacePlan {
  readonly edition: EditionId;
  readonly projectName: string;
  /** The dbt project inside the workspace ('.' is the workspace root). */
  readonly projectDir: string;
  readonly dirMode: number;
  readonly fileMode: number;
  readonly dirs: readonly string[];
  readonly files: readonly WorkspaceFile[];
  /** Left out on purpose (CI-only folders), relative to the edition root. */
  readonly skipped: readonly string[];
}

export const WORKSPACE_DIR_MODE = 0o700;
export const WORKSPACE_FILE_MODE = 0o600;

export function planWorkspace(source: EditionSource): WorkspacePlan {
  const spec = STARTER_EDITIONS[source.edition];
  return {
    edition: source.edition,
    projectName: spec.projectName,
    projectDir: spec.projectDir === '' ? '.' : spec.projectDir,
    dirMode: WORKSPACE_DIR_MODE,
    fileMode: WORKSPACE_FILE_MODE,
    dirs: [...source.tree.dirs],
    files: source.tree.files.map((file) => ({
      path: file.path,
      sha256: sha256Hex(file.bytes),
      bytes: file.bytes.length,
    })),
    skipped: [...source.skipped],
  };
}
