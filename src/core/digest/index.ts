export {
  type CopyLimits,
  CopyTargetFailed,
  copyFdHashing,
  copyStreamHashing,
  type HashedCopy,
} from './copy.js';
export { type DigestableFile, digestFileOnThread, type FileDigests } from './file-digests.js';
export {
  HashReadFailed,
  hashThreadsRunning,
  type PendingHash,
  setHashThreads,
} from './hash-threads.js';
export {
  copyFdHashingOverlapped,
  hashThreadFree,
  hashThreadUpAndFree,
  OVERLAP_MIN_BYTES,
  overlappedHashingAvailable,
  prestartHashThreads,
  startCopyFdHashingOverlapped,
  startHashFd,
} from './overlapped.js';
export {
  type HashedLength,
  isSha256Hex,
  isSha256Prefixed,
  Sha256Accumulator,
  type Sha256Hex,
  type Sha256Prefixed,
  sha256Hex,
  sha256OfStream,
  sha256Prefixed,
  toHex,
  toPrefixed,
} from './sha256.js';
