import { refuseContract } from './refusals.js';

/**
 * The physical types a contract field can declare. Authors write them as text
 * (`int64`, `decimal(12,2)`); projections carry the typed form.
 */
export type PhysicalType =
  | {
      readonly name:
        | 'string'
        | 'boolean'
        | 'date'
        | 'time'
        | 'timestamp'
        | 'timestamp_tz'
        | 'binary'
        | 'json';
    }
  | { readonly name: 'int8' | 'int16' | 'int32' | 'int64' }
  | { readonly name: 'float32' | 'float64' }
  | { readonly name: 'decimal'; readonly precision: number; readonly scale: number };

export type PhysicalTypeName = PhysicalType['name'];

export const SIMPLE_TYPE_NAMES = [
  'string',
  'boolean',
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'date',
  'time',
  'timestamp',
  'timestamp_tz',
  'binary',
  'json',
] as const;

/** Shape check for editors; precision ≤ 38 and scale ≤ precision are checked by `parsePhysicalType`. */
export const PHYSICAL_TYPE_PATTERN = new RegExp(
  `^(?:${SIMPLE_TYPE_NAMES.join('|')}|decimal\\((?:[1-9]|[12][0-9]|3[0-8]),(?:[0-9]|[12][0-9]|3[0-8])\\))$`,
);

const DECIMAL = /^decimal\(([0-9]+),([0-9]+)\)$/;
export const MAX_DECIMAL_PRECISION = 38;

/** A type text that is not a decimal, or a decimal whose scale is at most its precision. */
export function decimalWithinBounds(text: string): boolean {
  const match = DECIMAL.exec(text);
  return match === null || Number(match[2]) <= Number(match[1]);
}

export function parsePhysicalType(
  text: string,
  context: {
    readonly role: string;
    readonly field: string;
    readonly location?: { readonly pointer: string };
  },
): PhysicalType {
  if ((SIMPLE_TYPE_NAMES as readonly string[]).includes(text)) {
    return { name: text as Exclude<PhysicalTypeName, 'decimal'> } as PhysicalType;
  }
  const match = DECIMAL.exec(text);
  if (match !== null) {
    const precision = Number(match[1]);
    const scale = Number(match[2]);
    if (precision >= 1 && precision <= MAX_DECIMAL_PRECISION && scale <= precision) {
      return { name: 'decimal', precision, scale };
    }
  }
  throw refuseContract('contract_type_invalid', {
    ...context,
    ...(match === null ? {} : { hint: `decimal(P,S) needs 1 ≤ P ≤ ${MAX_DECIMAL_PRECISION} and S ≤ P` }),
  });
}

export function isNumericType(type: PhysicalType): boolean {
  return /^(?:int|float|decimal)/.test(type.name);
}

export function isTemporalType(type: PhysicalType): boolean {
  return type.name === 'date' || type.name === 'timestamp' || type.name === 'timestamp_tz';
}

/** Types whose values have a total order a min/max aggregation can use. */
export function isOrderedType(type: PhysicalType): boolean {
  return type.name !== 'binary' && type.name !== 'json' && type.name !== 'boolean';
}
