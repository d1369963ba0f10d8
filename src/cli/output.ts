import { errorKind, Refusal, type RefusalRecord } from '../core/refusal/index.js';
import type { CliIo, Disclosure } from './command.js';
import { fitColumns } from './fit-columns.js';
import { synopsisOf, UsageError } from './usage-error.js';

/**
 * The `--json` object a command prints. A library result declared as an
 * interface (`ScaffoldResult`, `CheckReport`, `RunReport`) holds only values
 * `JSON.stringify` prints, but TypeScript gives an interface no implicit index
 * signature, so it cannot be assigned to this type: the commands that print
 * one go through `jsonOut`, which checks it member by member.
 */
export interface JsonObjectOut {
  readonly [key: string]: string | number | boolean | null | readonly unknown[] | JsonObjectOut | undefined;
}

/**
 * `T` when every member at any depth is one `JSON.stringify` prints as
 * itself — a string, number, boolean, null, or an array or object of those
 * (`undefined` members are left out), or a `JsonObjectOut` — else `never`.
 * It maps an interface's own members, so it holds for the interfaces
 * `JsonObjectOut` cannot accept.
 */
export type JsonPrintable<T> = T extends string | number | boolean | null | undefined | JsonObjectOut
  ? T
  : T extends bigint | symbol | ((...args: never[]) => unknown)
    ? never
    : T extends object
      ? { readonly [K in keyof T]: JsonPrintable<T[K]> }
      : never;

/**
 * A library result as the `--json` object it prints. The cast is sound:
 * `JsonPrintable<T>` has checked every member, and only the index signature
 * an interface lacks keeps TypeScript from assigning it.
 */
export function jsonOut<T extends object>(value: T & JsonPrintable<T>): JsonObjectOut {
  return value as JsonObjectOut;
}

export function writeJson(io: CliIo, value: JsonObjectOut): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** `1 file`, `2 files`: a count and its noun, in the plural where English wants it. */
export function counted(count: number | bigint, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 || count === 1n ? noun : plural}`;
}

const INTERNAL_MESSAGE = 'sealkit hit an internal error; nothing was published by the failing step';

/**
 * What a refusal may show under a command's disclosure policy: a private
 * command never prints a location or a hint, whatever the library attached
 * (docs/refusals.md#two-policies).
 */
export function disclosed(refusal: Refusal, disclosure: Disclosure): Refusal {
  return disclosure === 'private' ? refusal.redacted() : refusal;
}

/** The `--json` object of a refusal: `reason_code`, `category`, `message`, then what is known of where. */
export function refusalJson(refusal: Refusal, disclosure: Disclosure): RefusalRecord {
  return disclosed(refusal, disclosure).toJSON();
}

/**
 * The human form of a refusal, one formatter for every command:
 *
 *     error[contract_field_unknown]: a resource file has a key sealkit does not know
 *       --> retail/sources/orders.yaml:14:5
 *       = at: fields[3].nulable
 *       = help: did you mean 'nullable'?
 */
export function formatRefusal(refusal: Refusal, disclosure: Disclosure): string {
  const shown = disclosed(refusal, disclosure);
  // In a private domain the role is the only way to tell which input file a
  // refusal is about (evidence check reads three), and it is allowlisted.
  const withRole = disclosure === 'private';
  const blocks = [shown, ...shown.also].map((one) => formatOne(one, withRole));
  if (shown.omitted > 0)
    blocks.push(`... and ${shown.omitted} more ${shown.omitted === 1 ? 'error' : 'errors'}\n`);
  return blocks.join('');
}

function formatOne(shown: Refusal, withRole: boolean): string {
  const lines = [`error[${shown.code}]: ${shown.message}`];
  const location = shown.location;
  if (location?.path !== undefined) {
    const position =
      location.line === undefined
        ? ''
        : `:${location.line}${location.column === undefined ? '' : `:${location.column}`}`;
    lines.push(`  --> ${location.path}${position}`);
  } else if (location?.line !== undefined) {
    lines.push(
      `  --> line ${location.line}${location.column === undefined ? '' : `, column ${location.column}`}`,
    );
  }
  if (withRole && shown.role !== undefined) lines.push(`  = in: ${shown.role}`);
  if (location?.pointer !== undefined) lines.push(`  = at: ${location.pointer}`);
  else if (shown.field !== undefined) lines.push(`  = field: ${shown.field}`);
  if (shown.hint !== undefined) lines.push(`  = help: ${shown.hint}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Colour on stderr only when a person is likely reading it: a terminal, no
 * `NO_COLOR` (https://no-color.org: any value, even empty, turns colour off),
 * and not `TERM=dumb`. Pipes, files and CI logs get plain text.
 */
export function wantsColour(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if ((stream as { isTTY?: boolean }).isTTY !== true) return false;
  if (env.NO_COLOR !== undefined) return false;
  return env.TERM !== 'dumb';
}

const RED_BOLD = '\u001b[1;31m';
const BLUE = '\u001b[34m';
const CYAN = '\u001b[36m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

/** Paints the formatted refusals in `text` (the output of formatRefusal) for a terminal. */
export function paintRefusals(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const error = /^error\[([a-z0-9_]+)\]: (.*)$/.exec(line);
      if (error !== null) return `${RED_BOLD}error[${error[1]}]${RESET}${BOLD}: ${error[2]}${RESET}`;
      if (line.startsWith('  --> ')) return `  ${BLUE}-->${RESET} ${line.slice(6)}`;
      if (line.startsWith('  = help: ')) return `  ${CYAN}= help:${RESET} ${line.slice(10)}`;
      if (line.startsWith('  = ')) return `  ${BLUE}=${RESET}${line.slice(3)}`;
      return line;
    })
    .join('\n');
}

/**
 * A progress line for a step that takes more than about a second, on stderr
 * and only for a person at a terminal (pipes, files and CI logs stay clean).
 */
export function progress(io: CliIo, text: string): void {
  if ((io.stderr as { isTTY?: boolean }).isTTY === true) io.stderr.write(`sealkit: ${text}\n`);
}

/**
 * Prints a failure: human form on stderr, or one JSON object on stdout.
 * Refusal messages are fixed per code; an unexpected error prints fixed text
 * only — its message may hold paths or values from the input.
 */
export function reportFailure(io: CliIo, error: unknown, json: boolean, disclosure: Disclosure): void {
  const paint = wantsColour(io.stderr) ? paintRefusals : (text: string) => text;
  if (error instanceof UsageError) {
    if (json) {
      writeJson(io, {
        status: 'usage_error',
        reason_code: 'usage',
        message: error.message,
        ...(error.hint !== undefined ? { hint: error.hint } : {}),
      });
    } else {
      io.stderr.write(`sealkit: ${error.message}\n`);
      if (error.hint !== undefined) io.stderr.write(`  = help: ${error.hint}\n`);
      if (error.full) io.stderr.write(`${fitColumns(error.usage)}\n`);
      else if (error.brief) io.stderr.write(`see '${error.helpCommand}'\n`);
      else io.stderr.write(`${fitColumns(synopsisOf(error.usage))}\nsee '${error.helpCommand}'\n`);
    }
    return;
  }
  if (error instanceof Refusal && error.category !== 'internal') {
    if (json) writeJson(io, { status: 'refused', ...refusalJson(error, disclosure) });
    else io.stderr.write(paint(formatRefusal(error, disclosure)));
    return;
  }
  // The kind of the defect (its class, an errno code), never its text; not
  // at all under the private policy, which shows code and role alone.
  const kind = disclosure === 'private' ? undefined : internalKind(error);
  if (json)
    writeJson(io, {
      status: 'internal_error',
      reason_code: 'internal_error',
      message: INTERNAL_MESSAGE,
      ...(kind === undefined ? {} : { error_kind: kind }),
    });
  else
    io.stderr.write(
      paint(
        `error[internal_error]: ${INTERNAL_MESSAGE}\n${kind === undefined ? '' : `  = note: ${kind}: a defect of sealkit, not of the input; report it with the command that gave it\n`}`,
      ),
    );
}

/** What an internal error was: kept by the refusal a library boundary made of it, or read off the exception. */
function internalKind(error: unknown): string | undefined {
  if (!(error instanceof Refusal)) return errorKind(error);
  const details: unknown = error.details;
  if (typeof details !== 'object' || details === null || !('error_kind' in details)) return undefined;
  return typeof details.error_kind === 'string' ? details.error_kind : undefined;
}
