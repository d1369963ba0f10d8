declare const microsBrand: unique symbol;
/** Microseconds since the Unix epoch (UTC); exact up to year 2255 within 2^53. */
export type EpochMicros = number & { readonly [microsBrand]: true };

// Python's `datetime.isoformat()` of an aware UTC datetime: `+00:00`, and a
// fraction of six digits when there are microseconds. `Z` is accepted as the
// same offset. Any other offset is refused: the fields are named `_utc`.
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:Z|\+00:00)$/;

/** A UTC ISO-8601 timestamp as epoch microseconds, or undefined when it is not one (calendar checked). */
export function parseUtcTimestamp(text: string): EpochMicros | undefined {
  const match = UTC_TIMESTAMP.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fraction = Number((match[7] ?? '').padEnd(6, '0'));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return (date.getTime() * 1000 + fraction) as EpochMicros;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function epochMicrosOf(date: Date): EpochMicros {
  return (date.getTime() * 1000) as EpochMicros;
}

/** `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00`, the form Python writes. */
export function formatUtcTimestamp(micros: EpochMicros): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return fraction === 0 ? `${base}+00:00` : `${base}.${String(fraction).padStart(6, '0')}+00:00`;
}
