import { nearest } from './suggest.js';

/**
 * "Did you mean" for a path the operator typed that does not exist: the
 * entry beside the missing name that is near enough to be a typo of it
 * (`doc.jsn` → `doc.json`), put back into the path as it was written. This
 * module decides from a listing it is given and reads nothing; the listing
 * is read by `core/fs/near-path.ts`. Only the located domains use it: the
 * names it offers come from the operator's own folders.
 */

/** What a listing says an entry is, without following a link. */
export type EntryKind = 'file' | 'folder' | 'other';

/** What the path should name: the kind of entry a command reads there. */
export type WantedKind = 'file' | 'folder';

export interface SiblingEntry {
  readonly name: string;
  readonly kind: EntryKind;
}

/** One component of a written path that may be the one that does not exist. */
export interface PathLevel {
  /** Its place among the path's `/`-separated parts, so it can be replaced in place. */
  readonly index: number;
  readonly name: string;
  /** The folder that holds it, as written: `.` before a relative path's first part, `/` before an absolute one's. */
  readonly parent: string;
  /** Whether it is the entry the path names, not a folder on the way to it. */
  readonly last: boolean;
}

/**
 * The levels of `written` that could be the missing one, deepest first: the
 * first whose parent exists is the one that is missing. Empty parts (`a//b`,
 * a trailing `/`) and `.` or `..` name no entry of their own and are skipped.
 */
export function pathLevels(written: string): readonly PathLevel[] {
  const parts = written.split('/');
  const levels: PathLevel[] = [];
  let last = true;
  for (let index = parts.length - 1; index >= 0; index -= 1) {
    const name = parts[index] ?? '';
    if (name === '' || name === '.' || name === '..') continue;
    const above = parts.slice(0, index).join('/');
    const parent = index === 0 ? '.' : above === '' ? '/' : above;
    levels.push({ index, name, parent, last });
    last = false;
  }
  return levels;
}

/**
 * The order in which kinds are tried: the wanted kind first; then a link or
 * other entry, which may lead to the wanted kind; the wrong kind last, for
 * the entry the path names only (a file cannot hold the rest of the path).
 */
function kindOrder(wanted: WantedKind, last: boolean): readonly EntryKind[] {
  if (!last) return ['folder', 'other'];
  return wanted === 'file' ? ['file', 'other', 'folder'] : ['folder', 'other', 'file'];
}

/**
 * The name among `entries` nearest to `given` (see `nearest`), taking the
 * wanted kind before any other, among those with the same numbers as
 * `given`. Undefined when none is near, or when `given` itself is listed:
 * then the path failed for another reason and no other name is the answer.
 */
export function nearestSibling(
  given: string,
  entries: readonly SiblingEntry[],
  wanted: WantedKind,
  last = true,
): string | undefined {
  if (entries.some((entry) => entry.name === given)) return undefined;
  const numbers = numbersIn(given);
  for (const kind of kindOrder(wanted, last)) {
    const near = nearest(
      given,
      entries
        .filter((entry) => entry.kind === kind && numbersIn(entry.name) === numbers)
        .map((entry) => entry.name),
    );
    if (near !== undefined) return near;
  }
  return undefined;
}

/**
 * The numbers a name holds, in order. Names in a series differ in their
 * numbers alone (`w22`, `w23`; `2024-06-01.json`, `2024-06-02.json`): one
 * that is missing has usually not been made yet, and its neighbour in the
 * series is another entry, not the one meant. Compared by value: `W5`
 * for `W05` is the same number written without its zero.
 */
function numbersIn(name: string): string {
  return (name.match(/[0-9]+/g) ?? []).map((digits) => digits.replace(/^0+(?=[0-9])/, '')).join(' ');
}

/**
 * `written` with the missing level replaced by its nearest sibling, every
 * other part as the user wrote it (`./`, trailing `/`, the rest of a path
 * under a misspelt folder); undefined when no sibling is near.
 */
export function nearPathFrom(
  written: string,
  level: PathLevel,
  entries: readonly SiblingEntry[],
  wanted: WantedKind,
): string | undefined {
  const near = nearestSibling(level.name, entries, wanted, level.last);
  if (near === undefined) return undefined;
  const parts = written.split('/');
  parts[level.index] = near;
  return parts.join('/');
}
