import type { PhysicalType } from '../authoring/physical-type.js';

export type TypeChange = 'same' | 'widened' | 'changed';

/** Decimal digits every value of an integer type needs (int64: 9223372036854775807). */
const INTEGER_DIGITS: Readonly<Record<string, number>> = { int8: 3, int16: 5, int32: 10, int64: 19 };
const INTEGER_RANK: Readonly<Record<string, number>> = { int8: 1, int16: 2, int32: 3, int64: 4 };
/** Integer types a float mantissa holds exactly (float32: 24 bits, float64: 53 bits). */
const EXACT_IN_FLOAT: Readonly<Record<string, readonly string[]>> = {
  float32: ['int8', 'int16'],
  float64: ['int8', 'int16', 'int32', 'float32'],
};

/**
 * How a physical type changed. A widening keeps every value of the old type
 * representable, exactly, in the new one: larger integers, integers into a
 * float whose mantissa holds them or into a decimal with enough integer
 * digits, float32 to float64, and a decimal whose integer digits and scale
 * both do not shrink. Everything else — narrowing, a change of family,
 * date/timestamp/time zone changes — is a change.
 */
export function typeChange(from: PhysicalType, to: PhysicalType): TypeChange {
  if (sameType(from, to)) return 'same';
  return widens(from, to) ? 'widened' : 'changed';
}

function sameType(a: PhysicalType, b: PhysicalType): boolean {
  if (a.name !== b.name) return false;
  if (a.name === 'decimal' && b.name === 'decimal') return a.precision === b.precision && a.scale === b.scale;
  return true;
}

function widens(from: PhysicalType, to: PhysicalType): boolean {
  const fromRank = INTEGER_RANK[from.name];
  if (fromRank !== undefined) {
    const toRank = INTEGER_RANK[to.name];
    if (toRank !== undefined) return toRank > fromRank;
    if (to.name === 'decimal') return to.precision - to.scale >= (INTEGER_DIGITS[from.name] ?? Infinity);
  }
  if (to.name === 'float32' || to.name === 'float64')
    return EXACT_IN_FLOAT[to.name]?.includes(from.name) ?? false;
  if (from.name === 'decimal' && to.name === 'decimal') {
    return to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
  }
  return false;
}
