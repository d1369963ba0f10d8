/**
 * Exact decimal values. Literals are compared, typed and written as decimal
 * text, never through a rounding conversion: a value is `digits × 10^exponent`
 * with `digits` free of trailing zeros, so equal values have one form.
 */
export interface ExactDecimal {
  readonly negative: boolean;
  /** Non-negative; zero is `0n` with exponent 0 and negative false. */
  readonly digits: bigint;
  readonly exponent: number;
}

/** The JSON number grammar: no `+`, no leading zeros, no `.5`, no `1.`, no hex, no inf/nan. */
const LEXEME = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?$/;
/** Bounds keep a hostile literal from asking for megabytes of digits. */
const MAX_LEXEME = 400;
const MAX_EXPONENT = 400;

export function parseDecimalLexeme(text: string): ExactDecimal | undefined {
  if (text.length > MAX_LEXEME) return undefined;
  const match = LEXEME.exec(text);
  if (match === null) return undefined;
  const [, sign = '', whole = '0', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) return undefined;
  return normalize(sign === '-', BigInt(whole + fraction), exponent - fraction.length);
}

function normalize(negative: boolean, digits: bigint, exponent: number): ExactDecimal {
  if (digits === 0n) return { negative: false, digits: 0n, exponent: 0 };
  let d = digits;
  let e = exponent;
  while (d % 10n === 0n) {
    d /= 10n;
    e += 1;
  }
  return { negative, digits: d, exponent: e };
}

export function sameDecimal(a: ExactDecimal, b: ExactDecimal): boolean {
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}

/** The exact value of a finite double (every double is a finite decimal). */
export function decimalOfDouble(value: number): ExactDecimal {
  if (!Number.isFinite(value)) throw new RangeError('not a finite double');
  if (value === 0) return { negative: false, digits: 0n, exponent: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075;
  if (power >= 0) return normalize(negative, mantissa << BigInt(power), 0);
  // m × 2^-k = m × 5^k × 10^-k
  return normalize(negative, mantissa * 5n ** BigInt(-power), power);
}

/** The decimal a double prints as (shortest round trip), e.g. 0.1 for the double nearest 0.1. */
export function decimalOfShortest(value: number): ExactDecimal {
  const parsed = parseDecimalLexeme(String(value).replace('e+', 'e'));
  if (parsed === undefined) throw new RangeError('not a finite double');
  return parsed;
}

/** Plain decimal text (no exponent) with at least `minScale` fraction digits. */
export function toPlainString(value: ExactDecimal, minScale = 0): string {
  const scale = Math.max(minScale, -value.exponent, 0);
  const scaled = value.digits * 10n ** BigInt(scale + value.exponent);
  let text = scaled.toString();
  if (scale > 0) {
    text = text.padStart(scale + 1, '0');
    text = `${text.slice(0, -scale)}.${text.slice(-scale)}`;
  }
  return value.negative ? `-${text}` : text;
}

/** Fraction digits the value needs (0 for integers). */
export function scaleOf(value: ExactDecimal): number {
  return Math.max(0, -value.exponent);
}

/** Digits before the decimal point (0 for |value| < 1). */
export function integerDigitsOf(value: ExactDecimal): number {
  if (value.digits === 0n) return 0;
  const length = value.digits.toString().length + value.exponent;
  return Math.max(0, length);
}

export function isInteger(value: ExactDecimal): boolean {
  return value.exponent >= 0;
}

export function toBigInt(value: ExactDecimal): bigint {
  if (value.exponent < 0) throw new RangeError('not an integer');
  const magnitude = value.digits * 10n ** BigInt(value.exponent);
  return value.negative ? -magnitude : magnitude;
}
