export { readFailureCause, writeFailureCause } from './causes.js';
export { closeEach, closeQuietly } from './close.js';
export { Dir } from './dir.js';
export { FsError, FsUnavailable, isFsError } from './errors.js';
export { fsPrimitivesAvailable } from './libc.js';
export type { DirEntry, DirEntryType } from './list.js';
export {
  type HeldLock,
  type LockPeek,
  type LockProbe,
  type LockResult,
  lockExclusiveNonBlocking,
  lockSharedNonBlocking,
  peekLock,
  probeLock,
} from './lock.js';
export type { EntryName } from './names.js';
export { didYouMeanPath, MAX_LISTED_ENTRIES, nearPath } from './near-path.js';
export { pointAtNullDevice } from './null-device.js';
export {
  fsyncAll,
  type OpenDescriptor,
  syncFilesystemOf,
  syncfsFlushesEveryFile,
} from './open-descriptor.js';
export { openOrCreateDir } from './open-or-create.js';
export type { PathHandle } from './path-handle.js';
export {
  DEFAULT_PRIVATE_MAX_BYTES,
  type ReadPrivateOptions,
  readPrivateFile,
  readPrivateJson,
} from './private-file.js';
export type { ReadableFile } from './readable-file.js';
export { type FsRefusalCode, type PlatformRefusalCode, refuseFs, refusePlatform } from './refusals.js';
export { exchange, renameNoReplace, renameReplacing } from './rename.js';
export type { FileStat, FileType } from './stat.js';
export { componentEnds, symlinkOnPath } from './symlink-on-path.js';
export type { WritableFile } from './writable-file.js';
