/** The proleptic Gregorian calendar of contract dates (docs/contracts.md#normalization). */

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Whether year-month-day names a day that exists (year 1 onwards). */
export function validDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** `YYYY-MM-DD` naming a day that exists: `2027-02-29` does not. */
export function isCalendarDate(text: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  return match !== null && validDate(Number(match[1]), Number(match[2]), Number(match[3]));
}
