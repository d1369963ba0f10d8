import { describe, expect, it } from 'vitest';
import { parseMaxEvidenceAge } from './freshness.js';
import { formatUtcTimestamp, parseUtcTimestamp } from './timestamps.js';

describe('parseMaxEvidenceAge', () => {
  it.each([
    ['45s', 45],
    ['90m', 5400],
    ['36h', 129_600],
    ['7d', 604_800],
    ['3600', 3600],
    ['1', 1],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseMaxEvidenceAge(text)).toBe(seconds);
  });

  it.each(['', '0', '0h', '-1', '+1', '1.5h', '36 h', '36H', '1w', 'h', ' 1', '01', '12345678901'])(
    'has no default and no guess for %j',
    (text) => {
      expect(parseMaxEvidenceAge(text)).toBeUndefined();
    },
  );
});

describe('UTC ISO-8601 timestamps', () => {
  it('reads the forms Python writes, to the microsecond', () => {
    expect(parseUtcTimestamp('2025-03-14T09:26:53+00:00')).toBe(Date.UTC(2025, 2, 14, 9, 26, 53) * 1000);
    expect(parseUtcTimestamp('2025-03-14T09:26:53.000001+00:00')).toBe(
      Date.UTC(2025, 2, 14, 9, 26, 53) * 1000 + 1,
    );
    expect(parseUtcTimestamp('2025-03-14T09:26:53.5Z')).toBe(
      Date.UTC(2025, 2, 14, 9, 26, 53) * 1000 + 500_000,
    );
  });

  it.each([
    ['2024-02-29T23:59:59+00:00', Date.UTC(2024, 1, 29, 23, 59, 59)],
    ['2000-02-29T00:00:00+00:00', Date.UTC(2000, 1, 29, 0, 0, 0)],
  ])('reads the leap day %s', (text, millis) => {
    expect(parseUtcTimestamp(text)).toBe(millis * 1000);
  });

  it.each(['1900-02-29T00:00:00+00:00', '2023-02-29T00:00:00+00:00'])(
    'refuses a leap day %s of a common year',
    (text) => {
      expect(parseUtcTimestamp(text)).toBeUndefined();
    },
  );

  it.each([
    '2025-03-14T09:26:53',
    '2025-03-14T09:26:53+01:00',
    '2025-03-14T09:26:53-00:00',
    '2025-03-14 09:26:53+00:00',
    '2025-03-14T09:26:53.1234567+00:00',
    '2025-02-29T00:00:00+00:00',
    '2025-04-31T00:00:00+00:00',
    '2025-13-01T00:00:00+00:00',
    '2025-03-14T24:00:00+00:00',
    '2025-03-14T23:60:00+00:00',
    '2025-03-14T23:59:60+00:00',
    '0000-01-01T00:00:00+00:00',
    '2025-03-14t09:26:53z',
  ])('refuses %s', (text) => {
    expect(parseUtcTimestamp(text)).toBeUndefined();
  });

  it.each([
    '2025-03-14T09:26:53+00:00',
    '1999-12-31T23:59:59.999999+00:00',
    '2025-03-14T09:26:53.250000+00:00',
  ])('round-trips %s', (text) => {
    const micros = parseUtcTimestamp(text);
    if (micros === undefined) throw new Error(`${text} was not read`);
    expect(formatUtcTimestamp(micros)).toBe(text);
  });
});
