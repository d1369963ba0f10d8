import { at } from '../list/index.js';

/**
 * "Did you mean": the allowed word nearest to what the user wrote, when it is
 * near enough to be a typo. Used for unknown keys, refs, commands and flags;
 * the candidates are sealkit's own vocabulary or names from the user's own
 * project, never another customer's data.
 *
 * Dotted names (`retail.source.orders`, `customers_sm.customer`) are compared
 * segment by segment: only the segments that differ count, each judged by
 * its own length. Compared whole, the segments two names share would make
 * any two of them look close (`retail.source.xyz` is not a typo of
 * `retail.source.orders`). Among the candidates near enough, the one with
 * the fewest edits wins; ties go to the first in code-unit order.
 */
export function nearest(given: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of [...new Set(candidates)].sort()) {
    const distance = typoDistance(given, candidate);
    if (distance !== undefined && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The edits between `given` and `candidate` when every part that differs is
 * near enough to be a typo, else undefined. Case is ignored.
 */
function typoDistance(given: string, candidate: string): number | undefined {
  const a = given.toLowerCase().split('.');
  const b = candidate.toLowerCase().split('.');
  if (a.length === b.length) {
    let total = 0;
    for (const [index, segment] of a.entries()) {
      const other = b[index] ?? '';
      if (segment === other) continue;
      const distance = wordDistance(segment, other);
      if (distance === undefined) return undefined;
      total += distance;
    }
    return total;
  }
  // A segment more or less: what lies between the shared leading and
  // trailing segments is compared as one word. A name that only lacks or
  // adds whole segments (`retail.source` for `retail.source.orders`) names
  // another level, not a typo.
  const shorter = Math.min(a.length, b.length);
  let lead = 0;
  while (lead < shorter && a[lead] === b[lead]) lead += 1;
  let trail = 0;
  while (trail < shorter - lead && a[a.length - 1 - trail] === b[b.length - 1 - trail]) trail += 1;
  const restA = a.slice(lead, a.length - trail).join('.');
  const restB = b.slice(lead, b.length - trail).join('.');
  if (restA === '' || restB === '') return undefined;
  // No start-of-name rule across a segment: `ful` would find `full.yaml`
  // while `full` finds nothing, and `retail.sour` a name one level deeper.
  return wordDistance(restA, restB, false);
}

/**
 * The edits between two words (already lowercased) when they are near
 * enough: a third of the longer word, at least one edit (`nulable` →
 * `nullable`, never `id` → `kind`), or, where `startCounts`, `given` is
 * the start of the candidate (`distrib` → `distribute`).
 */
function wordDistance(given: string, candidate: string, startCounts = true): number | undefined {
  const distance = editDistance(given, candidate);
  const limit = Math.max(1, Math.floor(Math.max(given.length, candidate.length) / 3));
  const isPrefix = startCounts && given.length >= 3 && candidate.startsWith(given);
  return distance <= limit || isPrefix ? distance : undefined;
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
