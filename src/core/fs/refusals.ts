import { defineRefusals } from '../refusal/index.js';

/**
 * Why a private file (the owner-only, no-symlink, single-link rule of
 * docs/filesystem.md#private-files) was not read. Messages are fixed: never
 * the path, a name, an owner or errno text.
 */
export type FsRefusalCode =
  | 'private_path_invalid'
  | 'private_missing'
  | 'private_symlink'
  | 'private_not_regular'
  | 'private_not_owned'
  | 'private_mode_too_open'
  | 'private_hard_linked'
  | 'private_too_large'
  | 'private_parent_not_private'
  | 'private_changed'
  | 'private_unverifiable'
  | 'private_not_object';

export const refuseFs = defineRefusals<FsRefusalCode>({
  private_path_invalid: {
    category: 'malformed',
    message: 'the private file path is empty, names a directory, or contains a NUL byte or invalid text',
  },
  private_missing: {
    category: 'missing',
    message: 'the private file does not exist',
  },
  private_symlink: {
    category: 'malformed',
    message: 'the private file path contains a symbolic link',
  },
  private_not_regular: {
    category: 'malformed',
    message: 'the private file is not a regular file',
  },
  private_not_owned: {
    category: 'malformed',
    message: 'the private file is not owned by the current user',
  },
  private_mode_too_open: {
    category: 'malformed',
    message: 'the private file grants permissions to group or others',
  },
  private_hard_linked: {
    category: 'malformed',
    message: 'the private file has more than one hard link',
  },
  private_too_large: {
    category: 'oversized',
    message: 'the private file exceeds the size limit',
  },
  private_parent_not_private: {
    category: 'malformed',
    message:
      'the directory holding the private file is not owned by the current user or grants permissions to group or others',
  },
  private_changed: {
    category: 'conflict',
    message: 'the private file changed while it was being read',
  },
  private_unverifiable: {
    category: 'unavailable',
    message: 'the private file rules cannot be verified on this platform or for this file',
  },
  private_not_object: {
    category: 'malformed',
    message: 'the private file does not hold a JSON object',
  },
});

export type PlatformRefusalCode = 'platform_unsupported';

/** A command that needs the Linux primitives, where they cannot be loaded (another OS, no koffi binary). */
export const refusePlatform = defineRefusals<PlatformRefusalCode>({
  platform_unsupported: {
    category: 'unsupported',
    message:
      'this command needs Linux with glibc (openat, renameat2, flock, statx through libc), which cannot be loaded here; nothing was read or written',
  },
});
