import { describe, expect, it } from 'vitest';
import { compareInstants, parseInstant } from './instant.js';
import type { Instant } from './types.js';

describe('RFC 3339 instants', () => {
  it.each([
    ['2026-05-30T11:10:00Z', '2026-05-30T11:10:00Z'],
    ['2026-05-30t11:10:00z', '2026-05-30T11:10:00Z'],
    ['2026-05-30T13:10:00+02:00', '2026-05-30T11:10:00Z'],
    ['2026-05-30T00:30:00-01:00', '2026-05-30T01:30:00Z'],
    ['2026-05-30T00:30:00+01:00', '2026-05-29T23:30:00Z'],
    ['2026-05-30T11:10:00.500Z', '2026-05-30T11:10:00.5Z'],
    ['2026-05-30T11:10:00.000Z', '2026-05-30T11:10:00Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['2026-05-30T11:10:00.123456789Z', '2026-05-30T11:10:00.123456789Z'],
  ])('normalizes %s', (text, normal) => {
    expect(parseInstant(text)).toBe(normal);
  });

  it.each([
    '2026-05-30',
    '2026-05-30 11:10:00Z',
    '2026-05-30T11:10:00',
    '2026-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2026-05-30T24:00:00Z',
    '2026-05-30T11:10:60Z',
    '2026-05-30T11:10:00.1234567890Z',
    '2026-05-30T11:10:00+24:00',
    '0000-01-01T00:00:00+01:00',
    ' 2026-05-30T11:10:00Z',
  ])('refuses %s', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });

  it('orders by time, fractions included', () => {
    const a = parseInstant('2026-05-30T11:10:00Z') as Instant;
    const b = parseInstant('2026-05-30T11:10:00.5Z') as Instant;
    const c = parseInstant('2026-05-30T13:10:00.25+02:00') as Instant;
    expect(compareInstants(a, b)).toBe(-1);
    expect(compareInstants(b, a)).toBe(1);
    expect(compareInstants(c, a)).toBe(1);
    expect(compareInstants(c, b)).toBe(-1);
    expect(compareInstants(a, parseInstant('2026-05-30T12:10:00+01:00') as Instant)).toBe(0);
  });
});
