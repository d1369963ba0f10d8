import { parseArgs } from 'node:util';
import { didYouMean } from '../core/refusal/index.js';
import { escapedBytes, invalidTextBytes } from './argv-text.js';
import { UsageError } from './usage-error.js';

export interface OptionSpec {
  readonly type: 'boolean' | 'string';
  readonly short?: string;
  /** A string option that may be repeated (`--resource A --resource B`): its value is a list. */
  readonly multiple?: boolean;
}
export type OptionSpecs = { readonly [name: string]: OptionSpec };

export interface ParsedCommandArgs<O extends OptionSpecs> {
  readonly values: {
    readonly [K in keyof O]?: O[K] extends { readonly type: 'boolean' }
      ? boolean
      : O[K] extends { readonly multiple: true }
        ? readonly string[]
        : string;
  };
  readonly positionals: readonly string[];
}

/**
 * Strict argument parsing: an unknown flag, a missing value or a surplus
 * positional is a usage error (exit 1) raised before anything is read.
 */
export function parseCommandArgs<const O extends OptionSpecs>(
  args: readonly string[],
  options: O,
  usage: string,
  positionals: { readonly min: number; readonly max: number },
  /** Flags of sibling commands, by name without `--`, with the command that takes them (`attempt: 'sealkit owner subjects'`). */
  elsewhere: { readonly [name: string]: string } = {},
  /**
   * Flags of the tools the command takes the place of, as typed (`-n`,
   * `--delete`), with the hint that answers them: habits of rsync or rclone
   * that no spelling rule relates to sealkit's own flags.
   */
  habits: { readonly [flag: string]: string } = {},
): ParsedCommandArgs<O> {
  let parsed: ParsedCommandArgs<O>;
  try {
    const withTokens = parseArgs({
      args: withNegativeValues(args, options),
      options: { ...options },
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
    refuseRepeatedValue(withTokens.tokens, options, usage);
    parsed = { values: withTokens.values, positionals: withTokens.positionals } as ParsedCommandArgs<O>;
  } catch (error: unknown) {
    if (error instanceof UsageError) throw error;
    throw usageErrorOf(error, options, usage, args, elsewhere, habits);
  }
  const urlAt = databaseUrlPlace(parsed, options);
  if (urlAt !== undefined) throw databaseUrlArgument(urlAt, options, usage);
  const count = parsed.positionals.length;
  if (count < positionals.min) {
    const name = positionalNames(usage)[count];
    throw new UsageError(name === undefined ? 'missing argument' : `missing argument ${name}`, usage);
  }
  if (count > positionals.max) throw surplusArgument(parsed.positionals, options, usage, positionals.max);
  return parsed;
}

const LEDGER_URL = /^postgres(ql)?:\/\//i;

/** A file name a configuration is given: YAML, the one format it is read in. */
const CONFIG_NAME = /\.ya?ml$/i;

/**
 * The names of a command's positional arguments, in order, as its usage's
 * first line writes them (`BUNDLE_DIR`, `[DIR]`): upper-case words that are
 * not an option's value (`--id ID`).
 */
function positionalNames(usage: string): string[] {
  const words = (usage.split('\n')[0] ?? '').trim().split(/\s+/);
  const names: string[] = [];
  for (const [index, word] of words.entries()) {
    const previous = words[index - 1] ?? '';
    if (previous.replace(/^\[/, '').startsWith('-')) continue;
    const bare = word.replace(/^\[|\]$/g, '');
    if (/^[A-Z][A-Z_]*$/.test(bare)) names.push(bare);
  }
  return names;
}

/**
 * A flag that takes one value, given twice, is refused rather than letting
 * the last one win silently (`--resource A --resource B` would otherwise
 * answer for B alone). Flags that take a list say so (`multiple`), and a
 * switch given twice means what it means once.
 */
function refuseRepeatedValue(
  tokens: readonly { readonly kind: string; readonly name?: string }[],
  options: OptionSpecs,
  usage: string,
): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    const spec = options[token.name];
    if (spec === undefined || spec.type !== 'string' || spec.multiple === true) continue;
    if (seen.has(token.name)) {
      throw new UsageError(`option --${token.name} given more than once`, usage, {
        hint: `--${token.name} takes one value: give it once`,
      });
    }
    seen.add(token.name);
  }
}

/**
 * Where a database URL was given in place of a path — `an argument`, or the
 * flag (`--project`) — or undefined. Only `--ledger` takes one.
 */
function databaseUrlPlace(parsed: ParsedCommandArgs<OptionSpecs>, options: OptionSpecs): string | undefined {
  if (parsed.positionals.some((given) => LEDGER_URL.test(given))) return 'an argument';
  for (const [name, value] of Object.entries(parsed.values)) {
    if (name === 'ledger' || options[name]?.type !== 'string') continue;
    const values: readonly unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((given) => typeof given === 'string' && LEDGER_URL.test(given))) return `--${name}`;
  }
  return undefined;
}

/**
 * A ledger URL given where the command takes a path: never echoed (it may
 * carry a password), and the flag that takes it named instead.
 */
function databaseUrlArgument(place: string, options: OptionSpecs, usage: string): UsageError {
  const notRepeated = 'the URL is not repeated here, since it may carry a password';
  return new UsageError(`a PostgreSQL URL was given as ${place}`, usage, {
    hint:
      options.ledger?.type === 'string'
        ? `a ledger is named with --ledger URL, or SEALKIT_LEDGER_URL or DATABASE_URL in the environment; ${notRepeated}`
        : `${place === 'an argument' ? 'this command takes paths' : `${place} takes a path`}, not a database URL; ${notRepeated}`,
  });
}

/**
 * Names the first argument the command does not take, and says what it
 * takes instead: a file given bare to a command that reads `--config`
 * (`distribute run sealkit.yaml`) is the usual slip.
 */
function surplusArgument(
  given: readonly string[],
  options: OptionSpecs,
  usage: string,
  max: number,
): UsageError {
  const surplus = given[max] ?? '';
  const hint =
    options.config?.type === 'string' && max === 0
      ? CONFIG_NAME.test(surplus)
        ? `the configuration is named with --config: --config ${surplus}`
        : // `run reports/ /srv/www/`, as rsync and rclone are called: the
          // folders are the configuration's, and --config before a folder
          // would only be refused as not a file.
          'this command takes no folders: it publishes from each source.root to the root of each destination, as the configuration sets them (sealkit.distributor.yaml, or --config FILE)'
      : max === 0
        ? 'this command takes no arguments, only options'
        : `this command takes at most ${max} argument${max === 1 ? '' : 's'}`;
  return new UsageError(`unexpected argument '${surplus}'`, usage, { hint });
}

// An unknown flag is one line, the nearest known flag and where to look:
// the whole usage text is one command away.
function usageErrorOf(
  error: unknown,
  options: OptionSpecs,
  usage: string,
  args: readonly string[],
  elsewhere: { readonly [name: string]: string },
  habits: { readonly [flag: string]: string },
): UsageError {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = optionName(error);
    const known = [...Object.keys(options), 'help'].map((name) => `--${name}`);
    const habit = Object.hasOwn(habits, given) ? habits[given] : undefined;
    const hint =
      habit ??
      (given.startsWith('--') ? unknownFlagHint(given, known, elsewhere) : shortFlagHint(given, known));
    return new UsageError(`unknown option ${given}`, usage, {
      brief: true,
      ...(hint !== undefined ? { hint } : {}),
    });
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const message = missingValue(optionName(error), args, options, usage);
    if (message !== undefined) return new UsageError(message, usage);
  }
  return new UsageError(describeParseError(error), usage);
}

/**
 * What an unknown `--flag` most likely meant: a flag of a sibling command
 * (`--attempt` on `owner verify` belongs to `owner subjects`), a near
 * spelling (`--maping-file`), or the one known flag holding all its words in
 * order (`--max-age` → `--max-evidence-age`, `--sha256` → `--expected-sha256`).
 */
function unknownFlagHint(
  given: string,
  known: readonly string[],
  elsewhere: { readonly [name: string]: string },
): string | undefined {
  const sibling = Object.hasOwn(elsewhere, given.slice(2)) ? elsewhere[given.slice(2)] : undefined;
  if (sibling !== undefined) return `${given} is an option of ${sibling}`;
  const near = didYouMean(given, known);
  if (near !== undefined) return near;
  const words = given
    .slice(2)
    .split('-')
    .filter((word) => word !== '');
  const holding = known.filter((flag) => holdsInOrder(flag.slice(2).split('-'), words));
  return holding.length === 1 && words.length > 0 ? `did you mean '${holding[0]}'?` : undefined;
}

/**
 * An unknown short flag (`-c`) as the long flags it may stand for: those
 * that start with its letter (`--config` or `--checksum`), when few do.
 * A sibling's short flag is named later, by the sibling hint.
 */
function shortFlagHint(given: string, known: readonly string[]): string | undefined {
  const letter = /^-([A-Za-z])$/.exec(given)?.[1]?.toLowerCase();
  if (letter === undefined) return undefined;
  const starting = known.filter((flag) => flag.startsWith(`--${letter}`) && flag !== '--help').sort();
  if (starting.length === 0 || starting.length > 3) return undefined;
  const quoted = starting.map((flag) => `'${flag}'`);
  const last = quoted.pop();
  return `did you mean ${quoted.length === 0 ? last : `${quoted.join(', ')} or ${last}`}?`;
}

function holdsInOrder(haystack: readonly string[], needles: readonly string[]): boolean {
  let at = 0;
  for (const word of haystack) if (word === needles[at]) at += 1;
  return at === needles.length;
}

/**
 * `--wait -1` reads as two flags to the argument parser, which then names
 * neither the value nor what the flag takes. A value that looks like a
 * negative number is passed on as the flag's value (`--wait=-1`), so the
 * command's own check says what it accepts (docs/cli.md#exit-codes).
 */
function withNegativeValues(args: readonly string[], options: OptionSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      options[name]?.type === 'string' &&
      next !== undefined &&
      /^-[0-9.]/.test(next)
    ) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/**
 * A flag without its value: at the end of the line, or followed by another
 * flag. Named with the value the usage text shows for it (`--exclude GLOB`).
 */
function missingValue(
  flag: string,
  args: readonly string[],
  options: OptionSpecs,
  usage: string,
): string | undefined {
  if (!flag.startsWith('--')) return undefined;
  const name = flag.slice(2);
  const spec = options[name];
  if (spec?.type === 'boolean') {
    const given = args.find((arg) => arg.startsWith(`${flag}=`));
    return given === undefined ? undefined : `${flag} takes no value, not '${given.slice(flag.length + 1)}'`;
  }
  if (spec?.type !== 'string') return undefined;
  const index = args.indexOf(flag);
  if (index === -1) return undefined;
  const placeholder = placeholderOf(flag, usage);
  const next = args[index + 1];
  if (next === undefined) return `${flag} takes a value, none given: ${flag} ${placeholder}`;
  return `${flag} takes a value (${flag} ${placeholder}), not the option '${next}'; write a value that starts with '-' as ${flag}=${placeholder}`;
}

/** The value a flag's usage text shows for it: `OUT` for `--out OUT`. */
function placeholderOf(flag: string, usage: string): string {
  return new RegExp(`${flag}[ =]([^\\s\\]]+)`).exec(usage)?.[1] ?? 'VALUE';
}

/**
 * A positional argument the command cannot run without (`DIR`): missing, or
 * given as an empty string (`''`, an unset shell variable), it is a usage
 * error naming it, raised before anything is read. An empty path would
 * otherwise reach the filesystem, as the current folder or as ENOENT.
 */
export function requireArgument(value: string | undefined, name: string, usage: string): string {
  if (value === undefined) throw new UsageError(`missing argument ${name}`, usage);
  if (value === '') throw new UsageError(`argument ${name} is an empty string`, usage);
  return textArgument(value, name, usage);
}

/**
 * A path argument whose bytes are not UTF-8 reaches a command with U+FFFD in
 * their place and would be reported as a file that does not exist — while it
 * does, under its own bytes. Say what it is instead, showing the bytes.
 */
export function textArgument(value: string, name: string, usage: string): string {
  const bytes = invalidTextBytes(value);
  if (bytes !== undefined) throw notUtf8Path(name, bytes, usage);
  return value;
}

function notUtf8Path(name: string, bytes: Uint8Array, usage: string): UsageError {
  return new UsageError(
    `${name} '${escapedBytes(bytes)}' holds bytes that are not UTF-8 (shown as \\xNN); sealkit takes only paths named in UTF-8`,
    usage,
  );
}

/** An optional positional argument: absent is fine, an empty string is a usage error. */
export function optionalArgument(value: string | undefined, name: string, usage: string): string | undefined {
  return value === undefined ? undefined : requireArgument(value, name, usage);
}

/** An option the command cannot run without (`--out OUT`): missing or empty is a usage error naming it. */
export function requireOption(value: string | undefined, flag: string, usage: string): string {
  if (value === undefined) throw new UsageError(`missing option ${flag}`, usage);
  return nonEmptyOption(value, flag, usage);
}

/**
 * An option given with an empty value (`--out ''`, `--out=`, every value of
 * a repeatable one) is a usage error naming the flag and the value it
 * takes; an option not given passes.
 */
export function nonEmptyOption<T extends string | readonly string[] | undefined>(
  value: T,
  flag: string,
  usage: string,
): T {
  const values: readonly string[] = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  if (values.includes('')) {
    throw new UsageError(
      `${flag} takes a value, not an empty string: ${flag} ${placeholderOf(flag, usage)}`,
      usage,
    );
  }
  return value;
}

/**
 * Node decodes every command-line argument as UTF-8 and puts U+FFFD where a
 * byte is not UTF-8 (`--out "$(printf 'ev\xff')"`), so such a value no
 * longer names the path typed: written as it is, it would create a
 * different name. Such a value is a usage error naming the flag; a U+FFFD
 * typed as UTF-8 is text and passes (`invalidTextBytes` asks the kernel's
 * own bytes), and so does an option not given.
 */
export function textOption<T extends string | undefined>(value: T, flag: string, usage: string): T {
  const bytes = value === undefined ? undefined : invalidTextBytes(value);
  if (bytes !== undefined) throw notUtf8Path(flag, bytes, usage);
  return value;
}

/** A path given to a flag: an empty value or bytes that are not UTF-8 are usage errors naming the flag. */
export function pathOption(value: string | undefined, flag: string, usage: string): string | undefined {
  return textOption(nonEmptyOption(value, flag, usage), flag, usage);
}

function describeParseError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${optionName(error)}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `invalid value for option ${optionName(error)}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return 'unexpected argument';
  return 'invalid arguments';
}

// parseArgs names the offending flag in its message; keep only a flag-shaped
// token, the long one of a flag it names by both ('-q, --quiet'): the short
// one named `--quiet=yes` as "invalid value for option -q".
function optionName(error: unknown): string {
  const match = /'(?:-[A-Za-z0-9], )?(-{1,2}[A-Za-z0-9][A-Za-z0-9_-]*)/.exec(
    String((error as Error).message),
  );
  return match?.[1] ?? '';
}
