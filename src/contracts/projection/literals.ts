import { validDate } from '../authoring/calendar.js';
import {
  decimalOfDouble,
  decimalOfShortest,
  type ExactDecimal,
  integerDigitsOf,
  isInteger,
  parseDecimalLexeme,
  sameDecimal,
  scaleOf,
  toBigInt,
  toPlainString,
} from '../authoring/decimal.js';
import type { PhysicalType } from '../authoring/physical-type.js';
import { refuseContract } from '../authoring/refusals.js';
import { normalizeText, type TextContext } from '../authoring/text.js';

/**
 * Exact literals as tagged values. A literal is typed through the physical
 * field it is compared with and written in that type's canonical text:
 * decimals at the field's scale, integers and floats as plain decimals,
 * temporal values in one ISO form (timestamps with a zone in UTC). No value is
 * ever rounded: one that the type cannot hold exactly is refused.
 */
export type TypedLiteral =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  | {
      readonly type: 'integer' | 'decimal' | 'float' | 'date' | 'time' | 'timestamp' | 'timestamp_tz';
      readonly value: string;
    };

export type AuthoredLiteral = string | number | boolean;

const INTEGER_BITS = { int8: 8n, int16: 16n, int32: 32n, int64: 64n } as const;

/**
 * Types `literal` through `type`. `subject` names what it is compared with
 * (`field 'order_status'`), for the hint of a refusal: the type and the form
 * a literal of it takes, never the literal itself.
 */
export function typeLiteral(
  literal: AuthoredLiteral,
  type: PhysicalType,
  site: TextContext,
  subject?: string,
): TypedLiteral {
  const about = subject === undefined ? `the field is ${typeText(type)}` : `${subject} is ${typeText(type)}`;
  const mismatch = () =>
    refuseContract('contract_literal_type_mismatch', {
      ...site,
      // The value may be right and the type the slip: both are said, so
      // that one changed type is not met with a rewrite of every value.
      hint: `${about}: write ${literalForm(type)}, or, if that type is the slip, change it where the field declares it`,
    });
  const inexact = () =>
    refuseContract('contract_literal_inexact', { ...site, hint: `${about}, which ${typeRange(type)}` });
  switch (type.name) {
    case 'string':
      if (typeof literal !== 'string') throw mismatch();
      return { type: 'string', value: normalizeText(literal, site) };
    case 'boolean':
      if (typeof literal !== 'boolean') throw mismatch();
      return { type: 'boolean', value: literal };
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64': {
      const value = numeric(literal, mismatch);
      if (!isInteger(value)) throw inexact();
      const bits = INTEGER_BITS[type.name];
      const integer = toBigInt(value);
      const limit = 1n << (bits - 1n);
      if (integer < -limit || integer >= limit) throw inexact();
      return { type: 'integer', value: integer.toString() };
    }
    case 'decimal': {
      const value = numeric(literal, mismatch);
      if (scaleOf(value) > type.scale || integerDigitsOf(value) > type.precision - type.scale)
        throw inexact();
      return { type: 'decimal', value: toPlainString(value, type.scale) };
    }
    case 'float32':
    case 'float64': {
      const value = numeric(literal, mismatch);
      const double = Number(toPlainString(value));
      if (!Number.isFinite(double) || !sameDecimal(decimalOfDouble(double), value)) throw inexact();
      if (type.name === 'float32' && Math.fround(double) !== double) throw inexact();
      return { type: 'float', value: toPlainString(value) };
    }
    case 'date':
      if (typeof literal !== 'string') throw mismatch();
      return { type: 'date', value: canonicalDate(literal) ?? throwing(mismatch) };
    case 'time':
      if (typeof literal !== 'string') throw mismatch();
      return { type: 'time', value: canonicalTime(literal) ?? throwing(mismatch) };
    case 'timestamp':
      if (typeof literal !== 'string') throw mismatch();
      return { type: 'timestamp', value: canonicalTimestamp(literal, false) ?? throwing(mismatch) };
    case 'timestamp_tz':
      if (typeof literal !== 'string') throw mismatch();
      return { type: 'timestamp_tz', value: canonicalTimestamp(literal, true) ?? throwing(mismatch) };
    default:
      // binary and json values have no literal form in a contract.
      throw mismatch();
  }
}

function typeText(type: PhysicalType): string {
  return type.name === 'decimal' ? `decimal(${type.precision},${type.scale})` : type.name;
}

/** The form a literal of `type` is written in (docs/contracts.md#normalization). */
function literalForm(type: PhysicalType): string {
  switch (type.name) {
    case 'string':
      return 'a string (quote a number or true/false to make it one)';
    case 'boolean':
      return 'true or false';
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return 'a whole number';
    case 'decimal':
    case 'float32':
    case 'float64':
      return 'a number';
    case 'date':
      return 'a date, YYYY-MM-DD';
    case 'time':
      return 'a time, HH:MM:SS';
    case 'timestamp':
      return 'a timestamp without a zone, YYYY-MM-DDTHH:MM:SS';
    case 'timestamp_tz':
      return 'a timestamp with a zone, YYYY-MM-DDTHH:MM:SSZ or …+01:00';
    default:
      return 'nothing: a binary or json field has no literal form, so it cannot be compared';
  }
}

/** What `type` holds exactly, for a literal it cannot hold. */
function typeRange(type: PhysicalType): string {
  switch (type.name) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64': {
      const limit = 1n << (INTEGER_BITS[type.name] - 1n);
      return `holds whole numbers from ${-limit} to ${limit - 1n}`;
    }
    case 'decimal':
      return `holds at most ${type.precision - type.scale} digits before the point and ${type.scale} after`;
    default:
      return 'does not hold that number exactly';
  }
}

function throwing(make: () => Error): never {
  throw make();
}

/** A YAML number (already checked exact by the YAML reader) or a decimal string. */
function numeric(literal: AuthoredLiteral, mismatch: () => Error): ExactDecimal {
  if (typeof literal === 'number') return decimalOfShortest(literal);
  if (typeof literal === 'string') {
    const parsed = parseDecimalLexeme(literal);
    if (parsed !== undefined) return parsed;
  }
  throw mismatch();
}

// --- temporal values ---------------------------------------------------------

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?$/;
const TIMESTAMP =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?(Z|[+-][0-9]{2}:[0-9]{2})?$/;

function validTime(hour: number, minute: number, second: number): boolean {
  return hour <= 23 && minute <= 59 && second <= 59;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Fraction digits without trailing zeros, with the dot; empty when zero. */
function fractionText(fraction: string | undefined): string {
  const trimmed = (fraction ?? '').replace(/0+$/, '');
  return trimmed === '' ? '' : `.${trimmed}`;
}

export function canonicalDate(text: string): string | undefined {
  const match = DATE.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return validDate(year, month, day) ? text : undefined;
}

function canonicalTime(text: string): string | undefined {
  const match = TIME.exec(text);
  if (match === null) return undefined;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!validTime(hour, minute, second)) return undefined;
  return `${match[1]}:${match[2]}:${match[3]}${fractionText(match[4])}`;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function canonicalTimestamp(text: string, zoned: boolean): string | undefined {
  const match = TIMESTAMP.exec(text);
  if (match === null) return undefined;
  const zone = match[8];
  if (zoned !== (zone !== undefined)) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
  if (!validDate(year, month, day) || !validTime(hour, minute, second)) return undefined;
  const fraction = fractionText(match[7]);
  if (zone === undefined) {
    return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}${fraction}`;
  }
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMins = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Shift to UTC in whole minutes; seconds and the fraction are unaffected.
  const minutes = daysFromCivil(year, month, day) * 1440 + hour * 60 + minute - offsetMinutes;
  const utcDays = Math.floor(minutes / 1440);
  const minuteOfDay = minutes - utcDays * 1440;
  const civil = civilFromDays(utcDays);
  if (civil.year < 1 || civil.year > 9999) return undefined;
  return `${pad(civil.year, 4)}-${pad(civil.month, 2)}-${pad(civil.day, 2)}T${pad(Math.floor(minuteOfDay / 60), 2)}:${pad(minuteOfDay % 60, 2)}:${match[6]}${fraction}Z`;
}
