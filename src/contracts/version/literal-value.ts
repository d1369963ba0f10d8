import type { LiteralView } from './views.js';

const NUMERIC: ReadonlySet<string> = new Set(['integer', 'decimal', 'float']);

/** A plain decimal without trailing fractional zeros: `12.50` and `12.500` and `12.5` are one value. */
function numericValue(text: string): string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const [whole = '0', fraction = ''] = body.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  const integer = whole.replace(/^0+(?=\d)/, '');
  const value = trimmed === '' ? integer : `${integer}.${trimmed}`;
  return negative && value !== '0' ? `-${value}` : value;
}

/**
 * What a typed literal means to a reader, for comparing two versions: a
 * number is its value whatever the scale it is written at (a decimal field
 * widened from scale 2 to 3 rewrites `19.90` as `19.900`, the same value),
 * everything else its exact tagged form. The type change itself is judged
 * by the field and binding rules.
 */
export function literalMeaning(literal: LiteralView): unknown {
  if (NUMERIC.has(literal.type) && typeof literal.value === 'string') {
    return { type: 'number', value: numericValue(literal.value) };
  }
  return literal;
}
