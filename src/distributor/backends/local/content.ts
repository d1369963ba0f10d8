import { OVERLAP_MIN_BYTES, type PendingHash, startHashFd, toPrefixed } from '../../../core/digest/index.js';
import { type Dir, isFsError, type ReadableFile, readFailureCause } from '../../../core/fs/index.js';
import type { Refusal } from '../../../core/refusal/index.js';
import type { OutputRecord } from '../../model/types.js';
import { refuseDistributor } from '../../refusals.js';
import { hashFd } from '../../validate/hash-fd.js';
import { openRegular } from '../../validate/open-source.js';

/** What reading the outputs of a managed bundle found (`--checksum`). */
export interface ContentComparison {
  /** Outputs whose bytes are not the ones the state records (another digest, or another length when read). */
  readonly changed: ReadonlySet<string>;
  /** Outputs that were gone by the time they were opened. */
  readonly gone: ReadonlySet<string>;
}

/** A comparison begun by `startCompareContent`. */
export interface ContentInFlight {
  /** Resolves once every file handed to a hashing thread is hashed; never blocks, never rejects. */
  readonly settled: () => Promise<void>;
  /** The verdict; blocks for a file not yet hashed. Call it exactly once: it closes the files. */
  readonly finish: () => ContentComparison | UnreadableOutput;
}

/**
 * Reads every output in `outputs` (those the listing found with the size the
 * state records) below the bundle directory `dir` and compares its SHA-256
 * with the state's record, for `distribute run --checksum`
 * (docs/distributor.md#comparing-by-content---checksum). No link is
 * followed: each output is opened as `openRegular` opens source files, and
 * a name that has become a link or a special file since the listing counts
 * as changed. Files of 64 KiB or more are handed to the run's hashing
 * threads, the others (and every file when no thread is free) hashed in
 * line. Every file is opened before this returns, so `dir` may be closed
 * then; what went to a thread is waited for by `finish`, or first, without
 * blocking, by `settled`: meanwhile the caller inspects the next bundles,
 * and both cores hash (docs/performance.md, "`--checksum` on both cores").
 * An output that cannot be read is a refusal: its content is unknown, and a
 * verdict either way would be a guess. `shownBundle` is the bundle folder
 * as the operator wrote the root, for that refusal's hint.
 */
export function startCompareContent(
  dir: Dir,
  outputs: readonly OutputRecord[],
  shownBundle: string,
  unreadableBySize = false,
): ContentInFlight {
  const changed = new Set<string>();
  const gone = new Set<string>();
  const handed: { readonly output: OutputRecord; readonly file: ReadableFile; readonly hash: PendingHash }[] =
    [];
  const unreadable = (output: OutputRecord, cause: string): UnreadableOutput => ({
    path: output.path,
    refusal: refuseDistributor('destination_output_unreadable', {
      role: 'destination',
      hint: `'${shownBundle}/${output.path}' cannot be read to compare its SHA-256 (--checksum): ${cause}`,
    }),
  });
  // Every file handed to a thread is waited for, so no descriptor or thread stays taken.
  const collect = (): UnreadableOutput | undefined => {
    let refusal: UnreadableOutput | undefined;
    for (const { output, file, hash } of handed.splice(0)) {
      try {
        const hashed = hash.result();
        if (hashed.exceeded || hashed.bytes !== output.size || toPrefixed(hashed.hex) !== output.sha256)
          changed.add(output.path);
      } catch (error: unknown) {
        if (!unreadableBySize) refusal ??= unreadable(output, readCause(error));
      } finally {
        file.close();
      }
    }
    return refusal;
  };
  let refusal: UnreadableOutput | undefined;
  try {
    for (const output of outputs) {
      const opened = openRegular(dir, output.path.split('/'));
      if (!opened.ok) {
        if (opened.problem === 'missing') gone.add(output.path);
        else if (opened.problem === 'unreadable') {
          // The read before a replacement: what may not be read is judged by its size, as it was.
          if (unreadableBySize) continue;
          refusal = unreadable(
            output,
            opened.errno === undefined ? 'it could not be opened' : readFailureCause(opened.errno),
          );
          break;
        } else changed.add(output.path);
        continue;
      }
      let kept = false;
      try {
        if (opened.stat.size !== BigInt(output.size)) {
          changed.add(output.path);
          continue;
        }
        const hash = output.size >= OVERLAP_MIN_BYTES ? startHashFd(opened.file.fd, output.size) : undefined;
        if (hash !== undefined) {
          handed.push({ output, file: opened.file, hash });
          kept = true;
          continue;
        }
        const hashed = hashFd(opened.file.fd, output.size);
        if (hashed.exceeded || hashed.bytes !== output.size || toPrefixed(hashed.hex) !== output.sha256)
          changed.add(output.path);
      } catch (error: unknown) {
        if (unreadableBySize) continue;
        refusal = unreadable(output, readCause(error));
        break;
      } finally {
        if (!kept) opened.file.close();
      }
    }
  } catch (error: unknown) {
    collect();
    throw error;
  }
  if (refusal !== undefined) {
    collect();
    const found = refusal;
    return { settled: () => Promise.resolve(), finish: () => found };
  }
  return {
    settled: async () => {
      for (const { hash } of handed) await hash.settled();
    },
    finish: () => collect() ?? { changed, gone },
  };
}

/** An output that could not be read (its path in the bundle), with the refusal naming it as the operator wrote the root. */
export interface UnreadableOutput {
  readonly path: string;
  readonly refusal: Refusal;
}

/** A read that failed after the open (EIO on a failing disk): the errno name when there is one. */
function readCause(error: unknown): string {
  const code = isFsError(error)
    ? error.code
    : typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : undefined;
  return code === undefined ? 'it could not be read' : `it could not be read (${code})`;
}
