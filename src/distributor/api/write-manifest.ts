import { randomBytes } from 'node:crypto';
import { toPrefixed } from '../../core/digest/index.js';
import { Dir, type DirEntry, isFsError, renameNoReplace } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { bundleDigest } from '../digest/bundle-digest.js';
import { MANIFEST_FILE } from '../discover/discover.js';
import { instantOf, parseInstant } from '../model/instant.js';
import { idProblem, serializeManifest } from '../model/manifest.js';
import type { ManifestFile, SourceManifest } from '../model/types.js';
import { compareUtf8, pathSetProblem, toBundlePath } from '../path/bundle-path.js';
import { refuseDistributor } from '../refusals.js';
import { hashFd } from '../validate/hash-fd.js';
import { openRegular } from '../validate/open-source.js';

export interface WriteManifestOptions {
  readonly id: string;
  /** RFC 3339; default now. Written normalized to UTC. */
  readonly created?: string;
  readonly now?: () => Date;
}

const MAX_FILES = 100_000;

/**
 * `sealkit distribute manifest`: writes `manifest.json` for a producer's
 * bundle directory. Every regular file below it is listed (sorted by UTF-8
 * path) with its size and SHA-256, and the bundle digest is computed over
 * them. Refused: an existing manifest.json (never replaced), a nested one, a
 * symbolic link or special file anywhere, and any name the path rules refuse.
 * The file appears atomically (written beside, fsynced, renamed without
 * replacing) with mode 0644.
 */
export function writeManifest(path: string, options: WriteManifestOptions): SourceManifest {
  return guardRefusals(
    () => {
      const badId = idProblem(options.id);
      if (badId !== undefined)
        throw refuseDistributor('manifest_id_invalid', { role: 'manifest', hint: badId });
      const created =
        options.created === undefined
          ? instantOf((options.now ?? (() => new Date()))())
          : parseInstant(options.created);
      if (created === undefined) throw refuseDistributor('manifest_created_invalid', { role: 'manifest' });
      let dir: Dir;
      try {
        dir = Dir.open(path);
      } catch {
        throw refuseDistributor('source_root_unavailable', { role: 'bundle' });
      }
      try {
        const paths = listBundleFiles(dir);
        if (paths.length === 0 || paths.length > MAX_FILES) {
          throw refuseDistributor('manifest_files_invalid', { role: 'manifest' });
        }
        const problem = pathSetProblem(paths);
        if (problem !== undefined) throw refuseDistributor(problem, { role: 'bundle' });
        const files = paths.map((file) => hashListed(dir, file));
        const manifest: SourceManifest = {
          schema_version: 1,
          id: options.id,
          digest: bundleDigest(files),
          created,
          files,
        };
        publishManifest(dir, serializeManifest(manifest));
        return manifest;
      } finally {
        dir.close();
      }
    },
    () => refuseDistributor('file_unreadable', { role: 'bundle' }),
  );
}

function listBundleFiles(root: Dir): string[] {
  const files: string[] = [];
  const walk = (dir: Dir, prefix: string, depth: number): void => {
    if (depth > 64) throw refuseDistributor('discovery_too_large');
    for (const entry of dir.list()) {
      if (!entry.utf8) throw refuseDistributor('path_not_utf8', { role: 'bundle' });
      if (depth === 0 && entry.name === MANIFEST_FILE)
        throw refuseDistributor('manifest_exists', { role: 'manifest' });
      if (entry.name === MANIFEST_FILE) throw refuseDistributor('bundle_nested', { role: 'bundle' });
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const type = typeOf(dir, entry);
      if (type === 'symlink') throw refuseDistributor('file_symlink', { role: 'bundle' });
      if (type === 'directory') {
        const child = dir.openDir(entry.bytes);
        try {
          walk(child, path, depth + 1);
        } finally {
          child.close();
        }
      } else if (type === 'file') {
        files.push(toBundlePath(path));
        if (files.length > MAX_FILES) throw refuseDistributor('manifest_files_invalid', { role: 'manifest' });
      } else throw refuseDistributor('file_not_regular', { role: 'bundle' });
    }
  };
  walk(root, '', 0);
  return files.sort(compareUtf8);
}

function typeOf(dir: Dir, entry: DirEntry): string {
  return entry.type === 'unknown' ? dir.stat(entry.bytes).type : entry.type;
}

function hashListed(dir: Dir, path: string): ManifestFile {
  const opened = openRegular(dir, path.split('/'));
  if (!opened.ok) throw refuseDistributor('file_unreadable', { role: 'bundle' });
  try {
    const size = Number(opened.stat.size);
    const hashed = hashFd(opened.file.fd, size);
    if (hashed.exceeded || hashed.bytes !== size)
      throw refuseDistributor('file_size_mismatch', { role: 'bundle' });
    return { path: toBundlePath(path), sha256: toPrefixed(hashed.hex), size };
  } finally {
    opened.file.close();
  }
}

function publishManifest(dir: Dir, text: string): void {
  const temporary = `.distributor.manifest-${randomBytes(6).toString('hex')}.tmp`;
  const file = dir.createExclusive(temporary, 0o644);
  let placed = false;
  try {
    file.write(Buffer.from(text, 'utf8'));
    file.fsync();
    file.close();
    try {
      renameNoReplace(dir, temporary, dir, MANIFEST_FILE);
    } catch (error: unknown) {
      if (isFsError(error, 'EEXIST')) throw refuseDistributor('manifest_exists', { role: 'manifest' });
      throw error;
    }
    placed = true;
    dir.fsync();
  } finally {
    file.close();
    if (!placed) {
      try {
        dir.unlink(temporary);
      } catch {
        // Already gone.
      }
    }
  }
}
