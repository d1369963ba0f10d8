import { describe, expect, it } from 'vitest';
import { Refusal } from '../../core/refusal/index.js';
import { parsePhysicalType } from '../authoring/physical-type.js';
import { type AuthoredLiteral, typeLiteral } from './literals.js';

const SITE = { role: 'semantic_model', field: 'filters[].conditions[].values' };
const typed = (literal: AuthoredLiteral, type: string) =>
  typeLiteral(literal, parsePhysicalType(type, SITE), SITE);

function code(literal: AuthoredLiteral, type: string): string {
  try {
    typed(literal, type);
  } catch (error: unknown) {
    if (error instanceof Refusal) return error.code;
    throw error;
  }
  return 'accepted';
}

describe('typed literals', () => {
  it.each([
    ['text', 'string', { type: 'string', value: 'text' }],
    ['cafe\u0301', 'string', { type: 'string', value: 'caf\u00e9' }],
    [true, 'boolean', { type: 'boolean', value: true }],
    [42, 'int8', { type: 'integer', value: '42' }],
    ['-128', 'int8', { type: 'integer', value: '-128' }],
    [1e3, 'int16', { type: 'integer', value: '1000' }],
    ['9223372036854775807', 'int64', { type: 'integer', value: '9223372036854775807' }],
    ['-9223372036854775808', 'int64', { type: 'integer', value: '-9223372036854775808' }],
    [19.9, 'decimal(6,2)', { type: 'decimal', value: '19.90' }],
    ['19.90', 'decimal(6,2)', { type: 'decimal', value: '19.90' }],
    ['1.9e1', 'decimal(6,2)', { type: 'decimal', value: '19.00' }],
    [0, 'decimal(6,2)', { type: 'decimal', value: '0.00' }],
    ['-0.5', 'decimal(1,1)', { type: 'decimal', value: '-0.5' }],
    [
      '12345678901234567890123456789012345678',
      'decimal(38,0)',
      { type: 'decimal', value: '12345678901234567890123456789012345678' },
    ],
    [0.5, 'float64', { type: 'float', value: '0.5' }],
    ['1e21', 'float64', { type: 'float', value: '1000000000000000000000' }],
    [
      '0.000000000931322574615478515625',
      'float32',
      { type: 'float', value: '0.000000000931322574615478515625' },
    ],
    ['2024-02-29', 'date', { type: 'date', value: '2024-02-29' }],
    ['23:59:59.500', 'time', { type: 'time', value: '23:59:59.5' }],
    ['2024-01-31 10:00:00.000000', 'timestamp', { type: 'timestamp', value: '2024-01-31T10:00:00' }],
    ['2024-01-01T00:30:00+01:00', 'timestamp_tz', { type: 'timestamp_tz', value: '2023-12-31T23:30:00Z' }],
    ['2024-02-28T23:00:00-01:30', 'timestamp_tz', { type: 'timestamp_tz', value: '2024-02-29T00:30:00Z' }],
    ['2024-01-01T00:00:00.25Z', 'timestamp_tz', { type: 'timestamp_tz', value: '2024-01-01T00:00:00.25Z' }],
  ])('types %j as %s', (literal, type, expected) => {
    expect(typed(literal, type)).toEqual(expected);
  });

  it.each([
    [42, 'string', 'contract_literal_type_mismatch'],
    ['true', 'boolean', 'contract_literal_type_mismatch'],
    ['x', 'int32', 'contract_literal_type_mismatch'],
    ['0x10', 'int32', 'contract_literal_type_mismatch'],
    [true, 'decimal(6,2)', 'contract_literal_type_mismatch'],
    ['a', 'binary', 'contract_literal_type_mismatch'],
    ['{}', 'json', 'contract_literal_type_mismatch'],
    ['2023-02-29', 'date', 'contract_literal_type_mismatch'],
    ['2024-13-01', 'date', 'contract_literal_type_mismatch'],
    ['24:00:00', 'time', 'contract_literal_type_mismatch'],
    ['2024-01-01T00:00:00Z', 'timestamp', 'contract_literal_type_mismatch'],
    ['2024-01-01T00:00:00', 'timestamp_tz', 'contract_literal_type_mismatch'],
    ['0001-01-01T00:30:00+01:00', 'timestamp_tz', 'contract_literal_type_mismatch'],
    ['x\u0000', 'string', 'contract_text_invalid'],
    [128, 'int8', 'contract_literal_inexact'],
    ['9223372036854775808', 'int64', 'contract_literal_inexact'],
    [1.5, 'int32', 'contract_literal_inexact'],
    [19.999, 'decimal(6,2)', 'contract_literal_inexact'],
    ['10000', 'decimal(6,2)', 'contract_literal_inexact'],
    [0.1, 'float64', 'contract_literal_inexact'],
    ['1e400', 'float64', 'contract_literal_inexact'],
    ['16777217', 'float32', 'contract_literal_inexact'],
    ['0.1', 'float32', 'contract_literal_inexact'],
  ])('refuses %j as %s with %s', (literal, type, expected) => {
    expect(code(literal, type)).toBe(expected);
  });
});

describe('typed literal refusals say what the type takes, never the literal', () => {
  it.each([
    [128, 'int8', "field 'qty' is int8, which holds whole numbers from -128 to 127"],
    [
      '1.005',
      'decimal(6,2)',
      "field 'qty' is decimal(6,2), which holds at most 4 digits before the point and 2 after",
    ],
    [
      'SECRET_LITERAL_ZQ',
      'int32',
      "field 'qty' is int32: write a whole number, or, if that type is the slip, change it where the field declares it",
    ],
    [
      7,
      'string',
      "field 'qty' is string: write a string (quote a number or true/false to make it one), or, if that type is the slip, change it where the field declares it",
    ],
    [
      '2026-13-01',
      'date',
      "field 'qty' is date: write a date, YYYY-MM-DD, or, if that type is the slip, change it where the field declares it",
    ],
    [
      '2026-01-01T00:00:00',
      'timestamp_tz',
      "field 'qty' is timestamp_tz: write a timestamp with a zone, YYYY-MM-DDTHH:MM:SSZ or …+01:00, or, if that type is the slip, change it where the field declares it",
    ],
  ])('regression: %s as %s', (literal, type, hint) => {
    let caught: unknown;
    try {
      typeLiteral(literal, parsePhysicalType(type, SITE), SITE, "field 'qty'");
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Refusal);
    expect((caught as Refusal).hint).toBe(hint);
  });
});
