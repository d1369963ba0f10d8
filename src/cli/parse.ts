import { parseArgs } from 'node:util';
import { didYouMean } from '../core/refusal/index.js';
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
): ParsedCommandArgs<O> {
  let parsed: ParsedCommandArgs<O>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...options },
      strict: true,
      allowPositionals: true,
    }) as ParsedCommandArgs<O>;
  } catch (error: unknown) {
    throw usageErrorOf(error, options, usage);
  }
  const count = parsed.positionals.length;
  if (count < positionals.min) throw new UsageError('missing argument', usage);
  if (count > positionals.max) throw surplusArgument(parsed.positionals, options, usage, positionals.max);
  return parsed;
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
      ? `the configuration is named with --config: --config ${surplus}`
      : max === 0
        ? 'this command takes no arguments, only options'
        : `this command takes at most ${max} argument${max === 1 ? '' : 's'}`;
  return new UsageError(`unexpected argument '${surplus}'`, usage, { hint });
}

// An unknown flag is one line, the nearest known flag and where to look:
// the whole usage text is one command away.
function usageErrorOf(error: unknown, options: OptionSpecs, usage: string): UsageError {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = optionName(error);
    const known = [...Object.keys(options), 'help'].map((name) => `--${name}`);
    const hint = given.startsWith('--') ? didYouMean(given, known) : undefined;
    return new UsageError(`unknown option ${given}`, usage, {
      brief: true,
      ...(hint !== undefined ? { hint } : {}),
    });
  }
  return new UsageError(describeParseError(error), usage);
}

function describeParseError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${optionName(error)}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `invalid value for option ${optionName(error)}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return 'unexpected argument';
  return 'invalid arguments';
}

// parseArgs names the offending flag in its message; keep only a flag-shaped token.
function optionName(error: unknown): string {
  const match = /'(-{1,2}[A-Za-z0-9][A-Za-z0-9_-]*)/.exec(String((error as Error).message));
  return match?.[1] ?? '';
}
