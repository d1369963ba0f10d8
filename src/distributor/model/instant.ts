import type { Instant } from './types.js';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 date-time and normalizes it to UTC (`…Z`), keeping up
 * to nanosecond precision exactly (no floating point). Refused (undefined):
 * anything else, impossible dates, a leap second (`:60`, which no clock we
 * compare with can represent), more than 9 fraction digits, and instants that
 * leave years 0000–9999 once shifted to UTC.
 */
export function parseInstant(text: string): Instant | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) return undefined;
  const digits = (fraction ?? '').replace(/0+$/, '');
  return `${pad(utcYear, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(
    date.getUTCHours(),
    2,
  )}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}${digits === '' ? '' : `.${digits}`}Z` as Instant;
}

/** Time order of two normalized instants: negative when `a` is earlier. */
export function compareInstants(a: Instant, b: Instant): number {
  // Same fixed-width ASCII layout up to the seconds: text order is time order.
  const wa = a.slice(0, 19);
  const wb = b.slice(0, 19);
  if (wa !== wb) return wa < wb ? -1 : 1;
  const fa = fractionDigits(a);
  const fb = fractionDigits(b);
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

/** The current time as an Instant (millisecond precision). */
export function instantOf(date: Date): Instant {
  const parsed = parseInstant(date.toISOString());
  if (parsed === undefined) throw new RangeError('date out of range');
  return parsed;
}

function fractionDigits(instant: Instant): string {
  const dot = instant.indexOf('.', 19);
  return (dot === -1 ? '' : instant.slice(dot + 1, -1)).padEnd(9, '0');
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
