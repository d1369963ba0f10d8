import type { Refusal } from '../../core/refusal/index.js';
import {
  applySynthesisPlan,
  checkSynthesisOut,
  DESTINATIONS,
  parseUtcTimestamp,
  planSynthesis,
  RETAIL_TABLE_NAMES,
  refuseSynth,
  SOURCE_KINDS,
  SYNTH_STEPS,
  type SynthesizeOptions,
  type SynthStep,
} from '../../migration/index.js';
import type { Command, CommandResult } from '../command.js';
import { type FaultVariable, faultsFromVariable } from '../fault-hooks.js';
import { runInterruptible } from '../interruption.js';
import { parseCommandArgs, requireOption, textOption } from '../parse.js';
import { quotedValue } from '../quote-value.js';
import { UsageError } from '../usage-error.js';
import { sourceBindingIdOption } from './evidence-flags.js';

const OPTIONS = {
  out: { type: 'string' },
  source: { type: 'string' },
  destination: { type: 'string' },
  tables: { type: 'string' },
  'source-binding-id': { type: 'string' },
  'finished-at': { type: 'string' },
  seed: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `Usage: sealkit evidence synth --out DIR --source csv|sql --destination bigquery|snowflake|duckdb
                              [--tables customers,products,orders,order_items]
                              [--source-binding-id ALIAS] [--finished-at TIMESTAMP] [--seed N]
                              [--dry-run] [--json]

Writes SYNTHETIC migration evidence for the canonical retail tables into the new
directory DIR (folders 0700, files 0600):
  - mapping.json, dry-run.json and run-manifests/<run_id>.json: the evidence;
  - fixtures/README.md: what the rows below are;
  - fixtures/migration_bronze/<bronze_table>.csv: synthetic Bronze rows per
    table, for sealkit edition check --fixtures.
A fixture generator for tests and demos, not a loader: nothing is extracted from
any source. The dry run, manifest and README say they are synthetic. The same
options with the same --finished-at give the same bytes; without it the finish
time is now, and the run ID and the manifest follow it.

Flags:
  --out DIR                 the directory to create; it must not exist
  --source csv|sql          the source kind the evidence describes
  --destination NAME        bigquery, snowflake or duckdb (duckdb selects no edition)
  --tables LIST             comma-separated canonical tables, in load order (default: all four)
  --source-binding-id ALIAS the alias recorded in both artifacts (default synthetic_retail)
  --finished-at TIMESTAMP   the run's UTC finish time, e.g. 2025-01-31T12:00:00Z (default: now)
  --seed N                  picks raw header variants and counts; with --finished-at, the
                            run ID (default 1)
  --dry-run                 print the plan (files, modes, sizes, SHA-256) and write nothing
  --json                    print one JSON object on stdout
  -h, --help                show this help

Exit codes: 0 written, 1 usage error, 2 refused (with a reason code), 70 internal error,
130 / 143 / 129 stopped by SIGINT / SIGTERM / SIGHUP before DIR was published
(evidence_synth_interrupted: what the run staged is removed, nothing is at DIR). A signal
after the publication changes nothing: the result stands.

Examples:
  sealkit evidence synth --out evidence --source sql --destination bigquery --source-binding-id shop_main
  sealkit evidence synth --out evidence --source csv --destination snowflake --dry-run`;

/** The test-only fault variable of `evidence synth` (docs/evidence.md#interrupted-and-the-test-only-fault-hook). */
export const SYNTH_FAULTS: FaultVariable<SynthStep> = {
  name: 'SEALKIT_SYNTH_FAULTS',
  points: SYNTH_STEPS,
  label: 'sealkit evidence synth',
  doc: 'docs/evidence.md',
};

export const evidenceSynth: Command = {
  path: ['evidence', 'synth'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 0 });
    const out = textOption(requireOption(values.out, '--out', USAGE), '--out', USAGE);
    const options = synthOptions(values);
    const faults = faultsFromVariable(SYNTH_FAULTS, process.env, USAGE);
    // The library's boundary guards and redacts (docs/evidence.md#privacy).
    const plan = planSynthesis(options);
    if (values['dry-run']) {
      // The dry run refuses the --out the real run would refuse (docs/evidence.md#synthetic-evidence).
      checkSynthesisOut(out);
      const lines = plan.files.map(
        (file) => `  ${file.path}  0600  ${file.bytes} bytes  sha256:${file.sha256}`,
      );
      return {
        text: `plan: would write SYNTHETIC evidence (${plan.source} source, ${plan.destination}); nothing written\n${lines.join('\n')}\n`,
        json: {
          status: 'planned',
          synthetic: true,
          source: plan.source,
          destination: plan.destination,
          tables: plan.tables,
          directories: plan.directories,
          files: plan.files.map((file) => ({
            path: file.path,
            mode: '0600',
            bytes: file.bytes,
            sha256: file.sha256,
            content: file.content,
          })),
        },
      };
    }
    // A signal before the rename stops the write (src/cli/interruption.ts); the refusal is a
    // private domain's: code and message only (docs/refusals.md#two-policies).
    const outcome = await runInterruptible(
      {
        io,
        json: values.json === true,
        disclosure: 'private',
        stoppedBy: (error): error is Refusal => refuseSynth.is(error, 'evidence_synth_interrupted'),
        done: () => 'the evidence was published',
      },
      (signal) => applySynthesisPlan(plan, out, { signal, faults: faults.library }),
    );
    if (outcome.kind === 'interrupted') return { ...outcome.result, afterOutput: faults.afterResult };
    const result = outcome.value;
    return {
      afterOutput: faults.afterResult,
      text: `wrote SYNTHETIC evidence (${result.source} source, ${result.destination}; a fixture, not a load):\n${result.files.map((file) => `  ${file}`).join('\n')}\n`,
      json: {
        status: 'written',
        synthetic: true,
        source: result.source,
        destination: result.destination,
        tables: result.tables,
        files: result.files,
      },
    };
  },
};

/** A flag that takes one of a few words: missing, or the value given named beside them. */
function oneOf(flag: string, given: string | undefined, choices: readonly string[]): UsageError {
  if (given === undefined) return new UsageError(`missing option ${flag} (${choices.join(', ')})`, USAGE);
  return new UsageError(`${flag} takes one of ${choices.join(', ')}, not ${quotedValue(given)}`, USAGE);
}

function synthOptions(values: {
  readonly source?: string | undefined;
  readonly destination?: string | undefined;
  readonly tables?: string | undefined;
  readonly 'source-binding-id'?: string | undefined;
  readonly 'finished-at'?: string | undefined;
  readonly seed?: string | undefined;
}): SynthesizeOptions {
  const source = SOURCE_KINDS.find((kind) => kind === values.source);
  if (source === undefined) throw oneOf('--source', values.source, SOURCE_KINDS);
  const destination = DESTINATIONS.find((name) => name === values.destination);
  if (destination === undefined) throw oneOf('--destination', values.destination, DESTINATIONS);
  const tables = values.tables?.split(',');
  if (
    tables !== undefined &&
    (tables.some((table) => !RETAIL_TABLE_NAMES.includes(table)) || new Set(tables).size !== tables.length)
  ) {
    throw new UsageError(
      `--tables takes a comma-separated list without repeats of ${RETAIL_TABLE_NAMES.join(', ')}, not ${quotedValue(values.tables ?? '')}`,
      USAGE,
    );
  }
  const alias = sourceBindingIdOption(values['source-binding-id'], USAGE);
  const finishedAt = values['finished-at'];
  if (finishedAt !== undefined && parseUtcTimestamp(finishedAt) === undefined) {
    throw new UsageError(
      `--finished-at takes a UTC timestamp such as 2026-05-30T06:00:00Z, not ${quotedValue(finishedAt)}`,
      USAGE,
    );
  }
  const seed = values.seed;
  if (seed !== undefined && !/^(0|[1-9][0-9]{0,8})$/.test(seed))
    throw new UsageError(`--seed takes a whole number from 0 to 999999999, not ${quotedValue(seed)}`, USAGE);
  return {
    source,
    destination,
    tables,
    sourceBindingId: alias,
    finishedAt,
    seed: seed === undefined ? undefined : Number(seed),
  };
}
