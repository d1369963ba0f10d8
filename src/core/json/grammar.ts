import type { Refusal } from '../refusal/index.js';
import { type JsonRefusalCode, refuseJson } from './refusals.js';
import { JsonFloat, type JsonValue } from './value.js';

/** Bounds the grammar enforces itself; the byte size is checked before decoding. */
export interface GrammarLimits {
  readonly maxDepth: number;
  readonly maxIntegerDigits: number;
}

type JsonRecord = Record<string, JsonValue>;
type Container = JsonValue[] | JsonRecord;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;
const ONE = 0x31;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_B = 0x62;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Integers of at most this many digits are exact when accumulated in a double. */
const EXACT_DIGITS = 15;

/**
 * Fixed advice for the commonest faults; never quotes the document (the
 * private domains drop hints anyway, see docs/refusals.md#two-policies).
 */
const HINTS = {
  arrayNext: "expected ',' or ']' after an array element",
  objectNext: "expected ',' or '}' after an object member",
  key: 'expected a key in double quotes',
  trailingComma: 'JSON allows no comma before a closing bracket or brace',
  colon: "expected ':' after an object key",
  value: 'expected a value: an object, array, string, number, true, false or null',
  end: 'the document ends before its value is complete',
  empty: 'the document is empty: it holds no JSON value',
  unclosedString: 'a string is not closed before the end of its line',
  control: 'a control character inside a string must be escaped, e.g. \\t',
  escape: 'a string uses an escape JSON does not have (valid: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)',
  number: 'a JSON number has no leading zero, hex digits, Infinity or trailing dot',
  literal: 'expected true, false or null',
  trailing: 'only one JSON value may be in the document',
} as const;

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/** ASCII letters and digits: a token that runs into one of them is malformed. */
function isWordChar(c: number): boolean {
  return (c >= ZERO && c <= NINE) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
}

/** The value of one hex digit, or -1; `c` may be NaN past the end of the text. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/**
 * RFC 8259 over already decoded text. Iterative, with an explicit stack of
 * open containers, so the nesting limit (not the JavaScript call stack)
 * decides how deep a document may go. Scanning works on char codes and
 * copies plain runs of string characters with one `slice`, which keeps it
 * within a small factor of the native `JSON.parse`.
 */
export class StrictGrammar {
  private readonly text: string;
  private readonly limits: GrammarLimits;
  private pos = 0;

  constructor(text: string, limits: GrammarLimits) {
    this.text = text;
    this.limits = limits;
  }

  parseDocument(): JsonValue {
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) throw this.refuseAt('json_trailing_data', this.pos, HINTS.trailing);
    return value;
  }

  private parseValue(): JsonValue {
    const parents: Container[] = [];
    const parentKeys: string[] = [];
    // Where each open object began: a repeated key is refused with where it first appeared.
    const parentOpens: number[] = [];
    let current: Container | undefined;
    let currentKey = '';
    let currentOpen = 0;
    let value: JsonValue;
    for (;;) {
      let c = this.skipWhitespace();
      if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        const depth = current === undefined ? 1 : parents.length + 2;
        if (depth > this.limits.maxDepth) throw this.refuseAt('json_too_deep', this.pos);
        const open = this.pos;
        this.pos++;
        const isArray = c === OPEN_BRACKET;
        const opened: Container = isArray ? [] : (Object.create(null) as JsonRecord);
        if (this.skipWhitespace() === (isArray ? CLOSE_BRACKET : CLOSE_BRACE)) {
          this.pos++;
          value = opened;
        } else {
          if (current !== undefined) {
            parents.push(current);
            parentKeys.push(currentKey);
            parentOpens.push(currentOpen);
          }
          current = opened;
          currentOpen = open;
          currentKey = Array.isArray(opened) ? '' : this.parseKey(opened, open);
          continue;
        }
      } else {
        value = this.parseScalar(c);
      }

      // Attach the finished value to its container, closing containers as
      // long as their closing bracket follows.
      for (;;) {
        if (current === undefined) return value;
        c = this.skipWhitespace();
        if (Array.isArray(current)) {
          current.push(value);
          if (c === COMMA) {
            this.pos++;
            break;
          }
          if (c !== CLOSE_BRACKET) throw this.malformedAt(this.pos, HINTS.arrayNext);
        } else {
          current[currentKey] = value;
          if (c === COMMA) {
            this.pos++;
            currentKey = this.parseKey(current, currentOpen);
            break;
          }
          if (c !== CLOSE_BRACE) throw this.malformedAt(this.pos, HINTS.objectNext);
        }
        this.pos++;
        value = current;
        current = parents.pop();
        currentKey = parentKeys.pop() ?? '';
        currentOpen = parentOpens.pop() ?? 0;
      }
    }
  }

  /**
   * Reads `"key" :` and refuses a key the object opened at `open` already
   * holds (compared after unescaping), saying where it first appeared.
   */
  private parseKey(target: JsonRecord, open: number): string {
    const c = this.skipWhitespace();
    if (c !== QUOTE) {
      throw this.malformedAt(this.pos, c === CLOSE_BRACE ? HINTS.trailingComma : HINTS.key);
    }
    const start = this.pos;
    const key = this.parseString();
    // The object has a null prototype, so `in` sees own keys only.
    if (key in target) throw this.refuseAt('json_duplicate_key', start, this.firstKeyHint(open, key));
    if (this.skipWhitespace() !== COLON) throw this.malformedAt(this.pos, HINTS.colon);
    this.pos++;
    return key;
  }

  /**
   * Where `key` first appears in the object opened at `open`, as a hint
   * (line and column only: a key of a private document is never printed).
   * Computed only on failure, by reading the object's members again: each
   * was already read without fault.
   */
  private firstKeyHint(open: number, key: string): string {
    const scan = new StrictGrammar(this.text, this.limits);
    scan.pos = open + 1;
    for (;;) {
      scan.skipWhitespace();
      const at = scan.pos;
      if (scan.parseString() === key) {
        const { line, column } = positionOf(this.text, at);
        return `this key is first set on line ${line}, column ${column}; keep one of the two`;
      }
      scan.skipWhitespace();
      scan.pos++;
      scan.parseValue();
      scan.skipWhitespace();
      scan.pos++;
    }
  }

  private parseScalar(c: number): JsonValue {
    if (c === QUOTE) return this.parseString();
    if (c === MINUS || isDigit(c)) return this.parseNumber(c);
    if (c === LOWER_T) return this.parseLiteral('true', true);
    if (c === LOWER_F) return this.parseLiteral('false', false);
    if (c === LOWER_N) return this.parseLiteral('null', null);
    const hint = c === CLOSE_BRACKET ? HINTS.trailingComma : HINTS.value;
    throw this.malformedAt(this.pos, hint);
  }

  private parseLiteral(word: string, value: JsonValue): JsonValue {
    const start = this.pos;
    if (!this.text.startsWith(word, start)) throw this.malformedAt(start, HINTS.literal);
    if (isWordChar(this.text.charCodeAt(start + word.length))) throw this.malformedAt(start, HINTS.literal);
    this.pos = start + word.length;
    return value;
  }

  /** `pos` is at the opening quote; leaves `pos` after the closing quote. */
  private parseString(): string {
    const text = this.text;
    let i = this.pos + 1;
    let start = i;
    let decoded = '';
    for (;;) {
      const c = text.charCodeAt(i);
      if (c >= SPACE && c !== QUOTE && c !== BACKSLASH) {
        i++;
        continue;
      }
      if (c === QUOTE) {
        this.pos = i + 1;
        return decoded + text.slice(start, i);
      }
      if (c !== BACKSLASH) {
        // An unescaped control character, or the end of the text (NaN).
        const hint = Number.isNaN(c) || c === LF || c === CR ? HINTS.unclosedString : HINTS.control;
        throw this.malformedAt(i, hint);
      }
      decoded += text.slice(start, i);
      const escapeAt = i;
      const escaped = text.charCodeAt(i + 1);
      i += 2;
      switch (escaped) {
        case QUOTE:
          decoded += '"';
          break;
        case BACKSLASH:
          decoded += '\\';
          break;
        case SLASH:
          decoded += '/';
          break;
        case LOWER_B:
          decoded += '\b';
          break;
        case LOWER_F:
          decoded += '\f';
          break;
        case LOWER_N:
          decoded += '\n';
          break;
        case LOWER_R:
          decoded += '\r';
          break;
        case LOWER_T:
          decoded += '\t';
          break;
        case LOWER_U: {
          const unit = this.hex4(i, escapeAt);
          i += 4;
          if (unit >= 0xd800 && unit <= 0xdbff) {
            // A high surrogate is only text when a low-surrogate escape follows.
            const low =
              text.charCodeAt(i) === BACKSLASH && text.charCodeAt(i + 1) === LOWER_U
                ? this.hex4(i + 2, i)
                : -1;
            if (low < 0xdc00 || low > 0xdfff) throw this.refuseAt('json_lone_surrogate', escapeAt);
            decoded += String.fromCharCode(unit, low);
            i += 6;
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            throw this.refuseAt('json_lone_surrogate', escapeAt);
          } else {
            decoded += String.fromCharCode(unit);
          }
          break;
        }
        default:
          throw this.malformedAt(escapeAt, Number.isNaN(escaped) ? HINTS.unclosedString : HINTS.escape);
      }
      start = i;
    }
  }

  /** Four hex digits at `at` as a code unit; refuses anything else, pointing at the escape at `escapeAt`. */
  private hex4(at: number, escapeAt: number): number {
    const text = this.text;
    const a = hexValue(text.charCodeAt(at));
    const b = hexValue(text.charCodeAt(at + 1));
    const c = hexValue(text.charCodeAt(at + 2));
    const d = hexValue(text.charCodeAt(at + 3));
    if ((a | b | c | d) < 0) throw this.malformedAt(escapeAt, HINTS.escape);
    return (a << 12) | (b << 8) | (c << 4) | d;
  }

  /**
   * RFC 8259 number grammar, strictly: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
   * Integers stay exact (number when safe, bigint beyond); a fraction or an
   * exponent yields a JsonFloat that keeps the lexeme.
   */
  private parseNumber(first: number): JsonValue {
    const text = this.text;
    const start = this.pos;
    let i = start;
    let c = first;
    const negative = c === MINUS;
    if (negative) c = text.charCodeAt(++i);
    const digitsStart = i;
    let magnitude = 0;
    if (c === ZERO) {
      c = text.charCodeAt(++i);
    } else if (c >= ONE && c <= NINE) {
      do {
        magnitude = magnitude * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      } while (isDigit(c));
    } else {
      throw this.malformedAt(start, HINTS.number);
    }
    const digits = i - digitsStart;
    let isFloat = false;
    if (c === DOT) {
      c = text.charCodeAt(++i);
      if (!isDigit(c)) throw this.malformedAt(start, HINTS.number);
      do c = text.charCodeAt(++i);
      while (isDigit(c));
      isFloat = true;
    }
    if (c === LOWER_E || c === UPPER_E) {
      c = text.charCodeAt(++i);
      if (c === PLUS || c === MINUS) c = text.charCodeAt(++i);
      if (!isDigit(c)) throw this.malformedAt(start, HINTS.number);
      do c = text.charCodeAt(++i);
      while (isDigit(c));
      isFloat = true;
    }
    // A number running into more number or word characters ("01", "1.2.3",
    // "0x10", "1e2e3") is a malformed token, not a value followed by
    // trailing data.
    if (c === DOT || c === PLUS || c === MINUS || isWordChar(c)) throw this.malformedAt(start, HINTS.number);
    this.pos = i;
    if (isFloat) return new JsonFloat(text.slice(start, i), start);
    if (digits > this.limits.maxIntegerDigits) throw this.refuseAt('json_integer_too_long', start);
    // "-0" is the integer 0: there is no negative zero among integers.
    if (digits <= EXACT_DIGITS) return negative && magnitude !== 0 ? -magnitude : magnitude;
    const lexeme = text.slice(start, i);
    const approximate = Number(lexeme);
    // Any integer beyond 2^53 - 1 rounds to at least 2^53, which is not safe,
    // so a safe result means the lexeme was represented exactly.
    return Number.isSafeInteger(approximate) ? approximate : BigInt(lexeme);
  }

  private malformedAt(index: number, hint: string): Refusal<JsonRefusalCode> {
    // Past the end of the text the fault is that the document stopped early,
    // or never began (an empty file, a pipe that wrote nothing).
    if (index < this.text.length) return this.refuseAt('json_malformed', index, hint);
    return this.refuseAt('json_malformed', index, /^[ \t\n\r]*$/.test(this.text) ? HINTS.empty : HINTS.end);
  }

  /**
   * The refusal `code` at UTF-16 index `index` of the text: 1-based line
   * (lines end at LF, so a CRLF file counts alike) and column in characters
   * (code points), as an editor shows them. Computed only on failure.
   */
  private refuseAt(code: JsonRefusalCode, index: number, hint?: string): Refusal<JsonRefusalCode> {
    const { line, column } = positionOf(this.text, Math.min(index, this.text.length));
    return refuseJson(code, { location: { line, column }, ...(hint !== undefined ? { hint } : {}) });
  }

  /** Skips JSON whitespace and returns the next char code (NaN at the end). */
  private skipWhitespace(): number {
    const text = this.text;
    let i = this.pos;
    let c = text.charCodeAt(i);
    while (c === SPACE || c === LF || c === CR || c === TAB) c = text.charCodeAt(++i);
    this.pos = i;
    return c;
  }
}

/** 1-based line and column (in code points) of UTF-16 index `index` of `text`. */
export function positionOf(text: string, index: number): { readonly line: number; readonly column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < index; i++) {
    const unit = text.charCodeAt(i);
    // The high half of a surrogate pair and its low half are one character.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff && i + 1 < index) i++;
    }
    column++;
  }
  return { line, column };
}
