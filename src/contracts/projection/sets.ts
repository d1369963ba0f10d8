import { canonicalize } from '../../core/json/index.js';
import { refuseContract } from '../authoring/refusals.js';
import type { TextContext } from '../authoring/text.js';
import { compareCodeUnits } from '../authoring/text.js';
import { type FaultSink, THROW_FIRST } from './faults.js';

/**
 * Normalizes a declared set of already-normalized members: sorted by their
 * RFC 8785 encoding (so the order is defined for any member shape) and free
 * of duplicates. `authored` tells a duplicate from a collision: two members
 * equal after normalization but authored differently (e.g. NFC and NFD
 * spellings of one string) are a collision. With `faults` every repeat is
 * reported there (each at its later copy); without, the first is thrown.
 */
export function normalizedSet<T>(
  members: readonly T[],
  site: TextContext,
  authored?: readonly unknown[],
  /** The key path of the member at an index, so a duplicate is reported where its second copy is. */
  pointerAt?: (index: number) => string,
  faults?: FaultSink,
): T[] {
  const keyed = members.map((member, index) => ({ key: canonicalize(member), member, index }));
  keyed.sort((a, b) => compareCodeUnits(a.key, b.key) || a.index - b.index);
  for (let i = 1; i < keyed.length; i++) {
    const previous = keyed[i - 1];
    const current = keyed[i];
    if (previous === undefined || current === undefined || previous.key !== current.key) continue;
    const before = authored?.[previous.index];
    const after = authored?.[current.index];
    const code = duplicateCode(before, after);
    const refusal = refuseContract(code, {
      ...(pointerAt === undefined ? site : { ...site, location: { pointer: pointerAt(current.index) } }),
      ...(pointerAt === undefined ? {} : { hint: duplicateHint(code, pointerAt(previous.index)) }),
    });
    if (faults === undefined) throw refusal;
    faults.check(() => {
      throw refusal;
    });
  }
  return keyed.map((entry) => entry.member);
}

/**
 * Why two members are one: written the same (a duplicate), written in two
 * Unicode spellings of one text (an NFC collision), or written differently
 * but typed to one value — one instant in two zones, `1.5` and `1.50` at one
 * scale (a typed duplicate).
 */
function duplicateCode(
  before: unknown,
  after: unknown,
): 'contract_duplicate_member' | 'contract_nfc_collision' | 'contract_literal_duplicate' {
  if (before === after || before === undefined || after === undefined) return 'contract_duplicate_member';
  if (
    typeof before === 'string' &&
    typeof after === 'string' &&
    before.normalize('NFC') === after.normalize('NFC')
  ) {
    return 'contract_nfc_collision';
  }
  return 'contract_literal_duplicate';
}

/** Where the earlier copy is (its key path, never its value), and what to do. */
function duplicateHint(code: ReturnType<typeof duplicateCode>, earlier: string): string {
  switch (code) {
    case 'contract_duplicate_member':
      return `the same as ${earlier}, earlier in this set: keep one of the two`;
    case 'contract_nfc_collision':
      return `the same text as ${earlier}, in another Unicode spelling: keep one of the two`;
    case 'contract_literal_duplicate':
      return `written differently from ${earlier} but the same typed value: keep one of the two`;
  }
}

/** Sorts members keyed by name; names were checked distinct before. */
export function byName<T extends { readonly name: string }>(members: readonly T[]): T[] {
  return [...members].sort((a, b) => compareCodeUnits(a.name, b.name));
}

/**
 * Refuses a repeated name among members that share one namespace, at the
 * second one when `pointerAt` says where each is written; with `faults`,
 * every repeat.
 */
export function requireDistinctNames(
  names: readonly string[],
  site: TextContext,
  pointerAt?: (index: number) => string,
  hintFor: (name: string) => string = (name) => `'${name}' is declared twice here`,
  faults: FaultSink = THROW_FIRST,
): void {
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (seen.has(name)) {
      faults.check(() => {
        throw refuseContract('contract_duplicate_member', {
          ...site,
          ...(pointerAt === undefined ? {} : { location: { pointer: pointerAt(index) } }),
          hint: hintFor(name),
        });
      });
    }
    seen.add(name);
  }
}
