import { sha256Hex } from '../../core/digest/index.js';
// The module alone: `json` must run where the system-call binding cannot load.
import { didYouMeanPath } from '../../core/fs/near-path.js';
import { decodeUtf8Strict, readBoundedInput } from '../../core/input/index.js';
import {
  canonicalize,
  DEFAULT_JSON_LIMITS,
  JsonFloat,
  type JsonValue,
  parseStrict,
  pyDumps,
  textPositionOf,
} from '../../core/json/index.js';
import { guardRefusalsAsync, Refusal } from '../../core/refusal/index.js';
import type { Command, CommandResult } from '../command.js';
import { progress } from '../output.js';
import { optionalArgument, parseCommandArgs } from '../parse.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  python: { type: 'boolean' },
  json: { type: 'boolean' },
  'max-bytes': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const DIGEST_OPTIONS = { ...OPTIONS, bare: { type: 'boolean' } } as const;

const COMMON = `
Reads FILE, or standard input when FILE is - or absent, as strict JSON: UTF-8
without a BOM, no duplicate keys (also through escapes), no lone surrogates,
bounded in size (default 10 MiB) and depth.

Flags:
  --python          the Python-compatible form: json.dumps(v, sort_keys=True,
                    ensure_ascii=False, separators=(",", ":")), exact integers,
                    floats refused (default: RFC 8785 / JCS)
  --max-bytes N     refuse inputs larger than N bytes (default 10485760)
  --json            print one JSON object on stdout
  -h, --help        show this help

Exit codes: 0 success, 1 usage error, 2 refused (with a reason code), 70 internal error.`;

const CANONICALIZE_USAGE = `Usage: sealkit json canonicalize [--python] [--max-bytes N] [--json] [FILE|-]

Prints the canonical form of a JSON document, with no trailing newline.
${COMMON}

Examples:
  sealkit json canonicalize order.json
  printf '%s' '{"b":1,"a":2}' | sealkit json canonicalize
  sealkit json canonicalize --python order.json`;

const DIGEST_USAGE = `Usage: sealkit json digest [--python] [--bare] [--max-bytes N] [--json] [FILE|-]

Prints the SHA-256 of the canonical form of a JSON document as sha256:<hex>,
the form every sealkit command prints digests in; --bare prints the 64
lowercase hex digits alone.
${COMMON.replace('Flags:\n', 'Flags:\n  --bare            print the digest without the sha256: prefix\n')}

Examples:
  sealkit json digest order.json
  sealkit json digest --bare order.json
  sealkit json digest --python --json order.json`;

interface Canonical {
  readonly form: 'rfc8785' | 'python';
  readonly bytes: Uint8Array;
}

async function canonicalFromArgs(
  args: readonly string[],
  usage: string,
  io: Parameters<Command['run']>[1],
  options: typeof OPTIONS | typeof DIGEST_OPTIONS = OPTIONS,
) {
  const { values, positionals } = parseCommandArgs(args, options, usage, { min: 0, max: 1 });
  const maxBytes = parseMaxBytes(values['max-bytes'], usage);
  // An empty FILE (`"$DOC"` with DOC unset) names no file: a usage error, as
  // for every command, not a refusal about a file that has no name.
  const source = optionalArgument(positionals[0], 'FILE', usage) ?? '-';
  const maxDepth = DEFAULT_JSON_LIMITS.maxDepth;
  // `sealkit json digest` typed alone waits for a document on the terminal;
  // say so, or it looks like a hang (docs/cli.md#progress).
  if (source === '-' && (io.stdin as { isTTY?: boolean }).isTTY === true)
    progress(
      io,
      'reading JSON from standard input: type or paste it, then Ctrl-D on a line of its own; or name a FILE',
    );
  return await locatedAt(source, async (): Promise<Canonical> => {
    const input = await withLimit(() => readBoundedInput(source, maxBytes, io.stdin), maxBytes, maxDepth);
    const value = await withLimit(async () => parseStrict(input, { maxBytes, maxDepth }), maxBytes, maxDepth);
    const python = values.python === true;
    let text: string;
    try {
      text = python ? pyDumps(value) : canonicalize(value);
    } catch (error: unknown) {
      throw locatedNumber(error, value, input, python);
    }
    return { form: python ? 'python' : 'rfc8785', bytes: Buffer.from(text, 'utf8') };
  });
}

/** A size or depth refusal says the limit it met, and how to raise the one a flag sets. */
async function withLimit<T>(work: () => Promise<T>, maxBytes: number, maxDepth: number): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (error instanceof Refusal && error.code === 'json_too_large')
      throw error.at({}, `larger than ${maxBytes} bytes: raise the limit with --max-bytes`);
    if (error instanceof Refusal && error.code === 'json_too_deep')
      throw error.at({}, `arrays and objects nest more than ${maxDepth} levels here`);
    throw error;
  }
}

/**
 * The serializers refuse a number without knowing where it was written; the
 * parser kept each float's place, so the refusal points at the first one
 * refused, with what to do (docs/json.md#reading-an-error). A float that
 * overflows a double (`1e400`) was finite as written: the hint says so
 * instead of leaving "infinite" unexplained.
 */
function locatedNumber(error: unknown, value: JsonValue, input: Uint8Array, python: boolean): unknown {
  if (!(error instanceof Refusal)) return error;
  const code: string = error.code;
  if (code === 'canonical_unsafe_integer') return locatedInteger(error, input, python);
  const overflow = (float: JsonFloat): boolean => !Number.isFinite(float.value);
  const refused =
    code === 'canonical_float_refused' && python
      ? () => true
      : code === 'canonical_non_finite'
        ? overflow
        : undefined;
  if (refused === undefined) return error;
  const float = firstFloat(value, refused);
  const offset = float?.offset;
  const decoded = decodeUtf8Strict(input);
  if (float === undefined || offset === undefined || !decoded.ok) return error;
  const { line, column } = textPositionOf(decoded.text, offset);
  const hint =
    code === 'canonical_non_finite'
      ? 'this number is finite as written but out of range for a double (beyond about ±1.8e308): write it as a string, or smaller'
      : 'the Python-compatible form takes integers only: write the number as an integer or a string, or drop --python for RFC 8785';
  return error.at({ line, column }, hint);
}

/** A string (skipped) or a number, in a document the strict parser has already read. */
const TOKEN = /"(?:[^"\\]|\\[\s\S])*"|-?([0-9]+)(\.[0-9]+)?([eE][+-]?[0-9]+)?/g;
const EXACT_LIMIT = 2n ** 53n;
const PYTHON_DIGITS = 4300;

/**
 * The parser keeps big integers as `bigint`, without their place: the
 * document is scanned again for the first integer the serializer refuses
 * (beyond ±2^53 for RFC 8785, more than 4,300 digits for Python's form).
 */
function locatedInteger(error: Refusal, input: Uint8Array, python: boolean): Refusal {
  const decoded = decodeUtf8Strict(input);
  if (!decoded.ok) return error;
  for (const match of decoded.text.matchAll(TOKEN)) {
    const digits = match[1];
    if (digits === undefined || match[2] !== undefined || match[3] !== undefined) continue;
    const refused = python ? digits.length > PYTHON_DIGITS : BigInt(digits) > EXACT_LIMIT;
    if (!refused) continue;
    const { line, column } = textPositionOf(decoded.text, match.index);
    return error.at(
      { line, column },
      python
        ? 'an integer of more than 4,300 digits, which Python refuses to write too: write it as a string'
        : 'RFC 8785 writes integers exactly only up to ±2^53 (9007199254740992): write it as a string, or use --python for exact integers',
    );
  }
  return error;
}

/** The float written first in the document among those `refused` matches. */
function firstFloat(value: JsonValue, refused: (float: JsonFloat) => boolean): JsonFloat | undefined {
  let first: JsonFloat | undefined;
  const visit = (node: JsonValue): void => {
    if (node instanceof JsonFloat) {
      if (refused(node) && (first === undefined || (node.offset ?? 0) < (first.offset ?? 0))) first = node;
    } else if (Array.isArray(node)) {
      for (const item of node) visit(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const item of Object.values(node)) visit(item);
    }
  };
  visit(value);
  return first;
}

/**
 * The document is the operator's own input, so a refusal names it as given
 * (`<stdin>` for standard input) over the line and column the parser found:
 * `--> data/orders.json:3:14`, and a file that is not there gets the name
 * beside it that is one typo away (docs/json.md#reading-an-error).
 */
async function locatedAt<T>(source: string, work: () => Promise<T>): Promise<T> {
  try {
    return await guardRefusalsAsync(work);
  } catch (error: unknown) {
    if (error instanceof Refusal && error.category !== 'internal') {
      const near =
        error.code === 'input_missing' && source !== '-' ? didYouMeanPath(source, 'file') : undefined;
      throw error.at({ path: source === '-' ? '<stdin>' : source }, near);
    }
    throw error;
  }
}

function parseMaxBytes(raw: string | undefined, usage: string): number {
  if (raw === undefined) return DEFAULT_JSON_LIMITS.maxBytes;
  if (!/^[1-9][0-9]{0,12}$/.test(raw))
    throw new UsageError(
      `--max-bytes takes a whole number of bytes from 1 to 9999999999999 (such as 10485760, no unit), not '${raw}'`,
      usage,
    );
  return Number(raw);
}

export const jsonCanonicalize: Command = {
  path: ['json', 'canonicalize'],
  usage: CANONICALIZE_USAGE,
  async run(args, io): Promise<CommandResult> {
    const outcome = await canonicalFromArgs(args, CANONICALIZE_USAGE, io);
    const { form, bytes } = outcome;
    return {
      text: bytes,
      json: { status: 'ok', form, canonical: Buffer.from(bytes).toString('utf8'), sha256: sha256Hex(bytes) },
    };
  },
};

export const jsonDigest: Command = {
  path: ['json', 'digest'],
  usage: DIGEST_USAGE,
  async run(args, io): Promise<CommandResult> {
    const outcome = await canonicalFromArgs(args, DIGEST_USAGE, io, DIGEST_OPTIONS);
    const { form, bytes } = outcome;
    const hex = sha256Hex(bytes);
    const bare = args.includes('--bare');
    return {
      text: bare ? `${hex}\n` : `sha256:${hex}\n`,
      json: { status: 'ok', form, sha256: hex, bytes: bytes.byteLength },
    };
  },
};
