// node:fs alone: `json` must run where the system-call binding cannot load.
import { type Dirent, opendirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type EntryKind,
  nearPathFrom,
  pathLevels,
  type SiblingEntry,
  type WantedKind,
} from '../refusal/near-path.js';

/**
 * A folder holding more entries than this gets no suggestion: a hint is not
 * worth reading a huge folder for, and the listing stops here.
 */
export const MAX_LISTED_ENTRIES = 4096;

/**
 * The path the operator most likely meant by `written`, which does not
 * exist: the deepest level whose parent folder exists is looked up in that
 * folder, listed once, and replaced by the entry nearest to it
 * (`reprots/w22/doc.md` → `reports/w22/doc.md`). Undefined when no entry is
 * near, or the folder cannot be listed or is too large to list. For a hint
 * on the operator's own paths only: the private domains never call it.
 * Relative paths are taken from the working directory, as the failed open
 * took them; a link is followed, since only names are read.
 *
 * `opened` is the path the failed open used when the user sees another
 * form of it (a configured path resolved against the configuration's
 * folder): the suggestion is looked up through `written`, so it is made
 * only when both name the same place.
 */
export function nearPath(written: string, wanted: WantedKind, opened?: string): string | undefined {
  if (opened !== undefined && resolve(opened) !== resolve(written)) return undefined;
  for (const level of pathLevels(written)) {
    const listing = listFolder(level.parent);
    if (listing === 'missing') continue;
    return listing === undefined ? undefined : nearPathFrom(written, level, listing, wanted);
  }
  return undefined;
}

/** `did you mean '<path>'?` for `nearPath`, the wording of every other suggestion. */
export function didYouMeanPath(written: string, wanted: WantedKind, opened?: string): string | undefined {
  const near = nearPath(written, wanted, opened);
  return near === undefined ? undefined : `did you mean '${near}'?`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CONTROL = /\p{Cc}/u;

/**
 * The entries of `folder`, at most MAX_LISTED_ENTRIES of them; `missing`
 * when it does not exist (look one level up), undefined when it cannot be
 * listed or holds more.
 */
function listFolder(folder: string): readonly SiblingEntry[] | 'missing' | undefined {
  let dir: ReturnType<typeof opendirSync>;
  try {
    // latin1 maps each byte of a name to one character: the bytes come back
    // exactly, and a name that is not UTF-8 can be told apart and left out.
    dir = opendirSync(folder, { encoding: 'latin1', bufferSize: 128 });
  } catch (error: unknown) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : undefined;
  }
  try {
    const entries: SiblingEntry[] = [];
    for (let read = 0; ; read += 1) {
      const entry = dir.readSync();
      if (entry === null) return entries;
      if (read >= MAX_LISTED_ENTRIES) return undefined;
      const name = decodedName(entry.name);
      if (name !== undefined && !danglingLink(folder, entry)) entries.push({ name, kind: kindOf(entry) });
    }
  } catch {
    return undefined;
  } finally {
    dir.closeSync();
  }
}

/** The name as text, or undefined for one no one could type back: not UTF-8, or with control characters. */
function decodedName(latin1: string): string | undefined {
  try {
    const name = UTF8.decode(Buffer.from(latin1, 'latin1'));
    return CONTROL.test(name) ? undefined : name;
  } catch {
    return undefined;
  }
}

/**
 * A link that leads nowhere (its target missing, a loop) is no answer to a
 * path that does not exist: suggesting it would only fail the same way.
 */
function danglingLink(folder: string, entry: Dirent): boolean {
  if (!entry.isSymbolicLink()) return false;
  const path = Buffer.concat([Buffer.from(folder), Buffer.from('/'), Buffer.from(entry.name, 'latin1')]);
  try {
    statSync(path);
    return false;
  } catch {
    return true;
  }
}

function kindOf(entry: Dirent): EntryKind {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'folder';
  return 'other';
}
