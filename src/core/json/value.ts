/**
 * The value model of strictly parsed JSON. Numbers stay exact: an integer
 * lexeme becomes a `number` when it is a safe integer and a `bigint` beyond
 * 2^53; any lexeme with a fraction or an exponent becomes a `JsonFloat`
 * that keeps its lexeme, so callers decide what they accept.
 * Objects have a null prototype: `__proto__` is an ordinary key.
 */
export type JsonValue = null | boolean | string | number | bigint | JsonFloat | JsonArray | JsonObject;
export type JsonArray = readonly JsonValue[];
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** A number written with a fraction or an exponent, e.g. `1.50` or `1e3`. */
export class JsonFloat {
  readonly lexeme: string;
  readonly value: number;
  // Private, not a field: two floats of one lexeme are equal wherever they were read.
  readonly #offset: number | undefined;
  constructor(lexeme: string, offset?: number) {
    this.lexeme = lexeme;
    this.value = Number(lexeme);
    this.#offset = offset;
  }

  /**
   * Where the parser read it: the UTF-16 index of its first character in the
   * decoded document, so a caller refusing the number can say where it is
   * (`textPositionOf`). Undefined for a float built in code.
   */
  get offset(): number | undefined {
    return this.#offset;
  }
}

export interface JsonLimits {
  /** Bytes; checked before any decoding. */
  readonly maxBytes: number;
  /** Nesting depth of arrays and objects; the top-level value is depth 1. */
  readonly maxDepth: number;
  /**
   * Digits of one integer lexeme. Converting a long digit run to a bigint
   * costs time superlinear in its length, so an unbounded lexeme inside an
   * otherwise small document would be a denial of service. The default
   * matches Python's default `int` string-conversion limit, the producer
   * of the documents that carry exact integers. Absent means the default.
   */
  readonly maxIntegerDigits?: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxDepth: 64,
  maxIntegerDigits: 4300,
};

export function isJsonObject(value: JsonValue): value is JsonObject {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonFloat)
  );
}
