import { at } from '../list/index.js';

/**
 * "Did you mean": the allowed word nearest to what the user wrote, when it is
 * near enough to be a typo. Used for unknown keys, refs, commands and flags;
 * the candidates are sealkit's own vocabulary or names from the user's own
 * project, never another customer's data.
 */
export function nearest(given: string, candidates: Iterable<string>): string | undefined {
  const folded = given.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of [...new Set(candidates)].sort()) {
    const distance = editDistance(folded, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  // A third of the longer word, at least one edit: `nulable` → `nullable`,
  // `distrib` → `distribute` (a prefix counts as near), never `id` → `kind`.
  const limit = Math.max(1, Math.floor(Math.max(given.length, best.length) / 3));
  const isPrefix = given.length >= 3 && best.toLowerCase().startsWith(folded);
  return bestDistance <= limit || isPrefix ? best : undefined;
}

/** `did you mean 'x'?` for the nearest candidate, or undefined when none is near. */
export function didYouMean(given: string, candidates: Iterable<string>): string | undefined {
  const match = nearest(given, candidates);
  return match === undefined ? undefined : `did you mean '${match}'?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = at(d, i);
      const above = at(d, i - 1);
      let value = Math.min(at(above, j) + 1, at(row, j - 1) + 1, at(above, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(at(d, i - 2), j - 2) + 1);
      }
      row[j] = value;
    }
  }
  return at(at(d, rows - 1), cols - 1);
}
