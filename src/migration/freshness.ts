declare const ageBrand: unique symbol;
/** A maximum evidence age in whole seconds (at least 1). */
export type MaxEvidenceAge = number & { readonly [ageBrand]: true };

const DURATION = /^([1-9][0-9]{0,9})([smhd]?)$/;
const UNIT_SECONDS = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** What `parseMaxEvidenceAge` accepts, in the words a usage error gives. */
export const MAX_EVIDENCE_AGE_FORMS =
  'a whole number of seconds, or of days, hours, minutes or seconds (7d, 36h, 90m, 45s), written with 1 to 10 digits and no leading zero';

/**
 * Parses `36h`, `7d`, `90m`, `45s` or a bare number of seconds. Returns
 * undefined for anything else (zero, a sign, a fraction, spaces, other units):
 * there is no default and no guess (gap 8, docs/evidence.md#evidence-gaps).
 */
export function parseMaxEvidenceAge(text: string): MaxEvidenceAge | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[(match[2] ?? '') as keyof typeof UNIT_SECONDS];
  return Number.isSafeInteger(seconds) ? (seconds as MaxEvidenceAge) : undefined;
}

/** A number of seconds accepted as a maximum age: a positive safe integer. */
export function isMaxEvidenceAge(value: unknown): value is MaxEvidenceAge {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
