import { compareCodeUnits } from '../authoring/text.js';
import { CONTRACT_RULES, type ContractRuleId } from './rules.js';
import type { ChangeVerdict } from './verdict.js';

/** One difference between a baseline and a candidate projection. */
export interface ContractChange {
  /** Where, e.g. `content.fields[amount].type`; member names appear escaped inside brackets. */
  readonly path: string;
  readonly rule: ContractRuleId;
  readonly verdict: ChangeVerdict;
}

/** A member name inside a path: `\` and `]` are escaped so a path reads back unambiguously. */
export function member(base: string, name: string): string {
  return `${base}[${name.replace(/[\\\]]/g, (ch) => `\\${ch}`)}]`;
}

/** Collects changes; the verdict of each comes from the rule table, never from the caller. */
export class ChangeList {
  readonly #changes: ContractChange[] = [];

  add(path: string, rule: ContractRuleId): void {
    this.#changes.push({ path, rule, verdict: CONTRACT_RULES[rule].verdict });
  }

  /** Sorted by path, then rule id; a (path, rule) pair appears once. */
  sorted(): readonly ContractChange[] {
    const sorted = [...this.#changes].sort(
      (a, b) => compareCodeUnits(a.path, b.path) || compareCodeUnits(a.rule, b.rule),
    );
    return sorted.filter(
      (change, index) =>
        index === 0 || change.path !== sorted[index - 1]?.path || change.rule !== sorted[index - 1]?.rule,
    );
  }
}

/** Pairs the members of two sets keyed by `key`: removed, added and kept (baseline, candidate). */
export function pairBy<T>(
  baseline: readonly T[],
  candidate: readonly T[],
  key: (item: T) => string,
): { removed: T[]; added: T[]; kept: [T, T][] } {
  const before = new Map(baseline.map((item) => [key(item), item]));
  const after = new Map(candidate.map((item) => [key(item), item]));
  const removed = [...before].filter(([k]) => !after.has(k)).map(([, item]) => item);
  const added = [...after].filter(([k]) => !before.has(k)).map(([, item]) => item);
  const kept: [T, T][] = [];
  for (const [k, item] of before) {
    const other = after.get(k);
    if (other !== undefined) kept.push([item, other]);
  }
  return { removed, added, kept };
}
