import type { FaultSink } from '../projection/faults.js';
import { refuseContract } from './refusals.js';

type WellFormedCheck = (this: string) => boolean;
const nativeWellFormed = (String.prototype as { isWellFormed?: WellFormedCheck }).isWellFormed;
const LONE_SURROGATE = /\p{Cs}/u;

export function isWellFormedText(text: string): boolean {
  return nativeWellFormed === undefined ? !LONE_SURROGATE.test(text) : nativeWellFormed.call(text);
}

// C0 controls other than TAB and LF, DEL, C1 controls, and the two
// noncharacters that mark byte order: none of them belongs in contract text.
function hasDisallowed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if ((unit < 0x20 && unit !== 0x09 && unit !== 0x0a) || (unit >= 0x7f && unit <= 0x9f) || unit >= 0xfffe) {
      return true;
    }
  }
  return false;
}

export interface TextContext {
  readonly role: string;
  readonly field: string;
  /** Where the text is written, with list indices, when the caller knows (docs/contracts.md#reading-an-error). */
  readonly location?: { readonly pointer: string };
}

/**
 * General contract text: well-formed, free of control characters, returned in
 * NFC. Two spellings of one text therefore have one identity; callers that
 * hold a set of texts check collisions with `collidingAfterNfc`.
 */
export function normalizeText(text: string, context: TextContext): string {
  if (!isWellFormedText(text) || hasDisallowed(text)) throw refuseContract('contract_text_invalid', context);
  return text.normalize('NFC');
}

/**
 * Checks a collection of texts keyed by their NFC form: two different authored
 * spellings that normalize to one text are a collision, the same spelling twice
 * is a duplicate. Returns the normalized texts in input order. With `faults`
 * every bad text and every repeat is reported there and the check goes on
 * (a refused text stands as written in the result); without, the first one
 * is thrown.
 */
export function normalizeDistinctTexts(
  texts: readonly string[],
  context: TextContext,
  /** Where the text at an index is written, so a repeat is reported at its second copy. */
  pointerAt?: (index: number) => string,
  faults?: FaultSink,
): string[] {
  const seen = new Map<string, { readonly text: string; readonly index: number }>();
  const out: string[] = [];
  for (const [index, text] of texts.entries()) {
    const here = pointerAt === undefined ? context : { ...context, location: { pointer: pointerAt(index) } };
    const one = (): string => {
      const normalized = normalizeText(text, here);
      const earlier = seen.get(normalized);
      if (earlier !== undefined) {
        // Name the first copy by where it is written, so the two can be found and one kept.
        const first =
          pointerAt === undefined ? '' : `: ${pointerAt(earlier.index)} has it too; keep one of the two`;
        throw refuseContract(earlier.text === text ? 'contract_duplicate_member' : 'contract_nfc_collision', {
          ...here,
          hint:
            earlier.text === text
              ? `'${normalized}' is written twice here${first}`
              : `'${normalized}' is written twice here, in two Unicode spellings${first}`,
        });
      }
      seen.set(normalized, { text, index });
      return normalized;
    };
    out.push(faults === undefined ? one() : (faults.check(one) ?? text));
  }
  return out;
}

/** Texts that must already be NFC (SQL literals and identifiers keep their exact bytes). */
export function requireNfc(text: string, context: TextContext): string {
  if (!isWellFormedText(text) || hasDisallowed(text) || text.normalize('NFC') !== text) {
    throw refuseContract('contract_text_invalid', context);
  }
  return text;
}

/** Comparison by UTF-16 code units, the order RFC 8785 uses for keys; used for every set. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
