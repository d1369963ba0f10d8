import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Dir, isFsError, type ReadableFile } from '../core/fs/index.js';
import { isJsonObject, type JsonObject, parseStrict } from '../core/json/index.js';
import { EVIDENCE_LIMITS } from './limits.js';
import { type Mapping, parseMapping } from './mapping.js';
import { guardPrivate } from './private-boundary.js';
import { asAdmissionRefusal } from './private-json.js';
import { refuseEvidence } from './refusals.js';

const refuse = (code: Parameters<typeof refuseEvidence>[0]) => refuseEvidence(code, { role: 'mapping' });

/**
 * The mapping file's admission rule (`_load_mapping_file`), which differs from
 * the private-file rule: a regular file whose final component is not a
 * symlink (directories above it may be), at most 1 MiB, strict UTF-8 JSON
 * object without duplicate keys. It need not be owner-only: a reviewed
 * mapping is operator-authored and may be shared. The final component is
 * pinned without following it, type-checked, then read through one
 * descriptor required to be the same inode.
 */
export function readMappingDocument(path: string): JsonObject {
  return guardPrivate(
    () => {
      const bytes = readMappingBytes(path);
      let value: ReturnType<typeof parseStrict>;
      try {
        value = parseStrict(bytes, { maxBytes: EVIDENCE_LIMITS.mappingFileBytes });
      } catch (error: unknown) {
        throw asAdmissionRefusal(error, 'mapping');
      }
      if (!isJsonObject(value)) throw refuse('scaffold_input_malformed');
      return value;
    },
    () => refuse('scaffold_input_not_private'),
  );
}

/**
 * `_load_mapping_file`: the file rule, then the mapping parser.
 * `mappingsFingerprint(loadMappingFile(p))` is the mapping fingerprint of
 * docs/evidence.md#fingerprint-constructions.
 */
export function loadMappingFile(path: string): Mapping {
  return parseMapping(readMappingDocument(path));
}

function readMappingBytes(path: string): Uint8Array {
  const name = basename(path);
  if (path.length === 0 || path.endsWith('/') || path.includes('\0') || name === '.' || name === '..') {
    throw refuse('scaffold_input_missing');
  }
  let dir: Dir;
  try {
    // Symlinks above the file are allowed by the rule; resolve them once, then hold the directory.
    dir = Dir.openForLookup(realpathSync(dirname(path)));
  } catch (error: unknown) {
    throw refuse(failureCode(error));
  }
  try {
    const pinned = attempt(() => dir.openPath(name));
    try {
      const expected = pinned.stat();
      // The one privacy rule the mapping has: its final component is no symlink.
      if (expected.type === 'symlink') throw refuse('scaffold_input_not_private');
      if (expected.type !== 'file') throw refuse('scaffold_input_not_regular');
      if (expected.size > BigInt(EVIDENCE_LIMITS.mappingFileBytes)) throw refuse('scaffold_input_oversized');
      const file: ReadableFile = attempt(() => dir.openFile(name));
      try {
        const held = file.stat();
        if (held.ino !== expected.ino || held.dev !== expected.dev)
          throw refuse('scaffold_input_not_private');
        const bytes = file.readUpTo(EVIDENCE_LIMITS.mappingFileBytes + 1);
        if (bytes.length > EVIDENCE_LIMITS.mappingFileBytes) throw refuse('scaffold_input_oversized');
        return bytes;
      } finally {
        file.close();
      }
    } finally {
      pinned.close();
    }
  } finally {
    dir.close();
  }
}

function attempt<T>(step: () => T): T {
  try {
    return step();
  } catch (error: unknown) {
    throw refuse(failureCode(error));
  }
}

/**
 * A failed look-up or open: missing, denied (the mapping need not be
 * owner-only, so a denial is only that: unreadable), or anything else the
 * rule cannot vouch for.
 */
function failureCode(error: unknown): Parameters<typeof refuseEvidence>[0] {
  if (isMissing(error)) return 'scaffold_input_missing';
  if (hasCode(error, 'EACCES') || hasCode(error, 'EPERM')) return 'scaffold_input_unreadable';
  return 'scaffold_input_not_private';
}

function hasCode(error: unknown, code: string): boolean {
  return (
    isFsError(error, code) ||
    (typeof error === 'object' && error !== null && 'code' in error && error.code === code)
  );
}

function isMissing(error: unknown): boolean {
  return (
    isFsError(error, 'ENOENT') ||
    isFsError(error, 'ENOTDIR') ||
    (typeof error === 'object' &&
      error !== null &&
      'code' in error &&
      (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
  );
}
