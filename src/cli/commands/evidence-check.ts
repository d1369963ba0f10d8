import { bindEvidence } from '../../migration/index.js';
import type { Command, CommandResult } from '../command.js';
import { parseCommandArgs } from '../parse.js';
import { evidenceFlags } from './evidence-flags.js';

const OPTIONS = {
  'mapping-file': { type: 'string' },
  'inventory-file': { type: 'string' },
  'run-manifest': { type: 'string' },
  'source-binding-id': { type: 'string' },
  'max-evidence-age': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `Usage: sealkit evidence check --mapping-file FILE --inventory-file FILE --run-manifest FILE
                              --source-binding-id ALIAS --max-evidence-age DURATION [--json]

Checks that a reviewed mapping, a saved dry run (--inventory-file) and a
completed run manifest bind together under the scaffolder input contract:
admission limits, field tables, then binding steps 1-10. Reads only the named
local files; never connects to a source or a warehouse.

Flags:
  --mapping-file FILE          reviewed mapping (version 1 JSON, at most 1 MiB)
  --inventory-file FILE        saved --dry-run report (owner-only file, at most 10 MiB)
  --run-manifest FILE          run-manifests/<run_id>.json of a completed load (owner-only)
  --source-binding-id ALIAS    the source binding alias, [a-z][a-z0-9_]{0,39}; must equal the
                               alias in both artifacts (evidence synth records synthetic_retail
                               unless given one)
  --max-evidence-age DURATION  maximum age of the run: 36h, 7d, 90m, 45s or seconds; no default
  --json                       print one JSON object on stdout
  -h, --help                   show this help

A missing file, alias or maximum age is refused with its reason code (exit 2),
never guessed; one given empty, or an alias outside its pattern, is a usage
error. The files are read from paths, never from standard input. Output names
tables and the selected edition only: never paths, target identities, run IDs,
pipeline names, counts or fingerprints.

Exit codes: 0 bound, 1 usage error, 2 refused (with a reason code), 70 internal error.

Examples:
  sealkit evidence check --mapping-file evidence/mapping.json --inventory-file evidence/dry-run.json --run-manifest evidence/run-manifests/RUN_ID.json --source-binding-id shop_main --max-evidence-age 36h`;

export const evidenceCheck: Command = {
  path: ['evidence', 'check'],
  usage: USAGE,
  async run(args): Promise<CommandResult> {
    const { values } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 0 });
    const flags = evidenceFlags(values, USAGE);
    const outcome = bindEvidence({
      mappingFile: flags.mappingFile,
      dryRunFile: flags.inventoryFile,
      runManifestFile: flags.runManifestFile,
      sourceBindingId: flags.sourceBindingId,
      maxAge: flags.maxEvidenceAge,
    });
    if (outcome.status === 'refused') throw outcome.refusal;
    const tables = outcome.tables.map((table) => ({
      table: table.table,
      bronze_table: table.bronzeTable,
      source_columns: table.sourceColumns.length,
      mapping_rules: table.rules.length,
    }));
    const lines = [
      `bound: the evidence selects ${outcome.edition} (destination ${outcome.destination}, ${outcome.sourceKind} source)`,
      ...tables.map(
        (table) =>
          `  ${table.table} -> ${table.bronze_table}: ${table.source_columns} source columns, ${table.mapping_rules} mapping rules`,
      ),
    ];
    return {
      text: `${lines.join('\n')}\n`,
      json: {
        status: 'bound',
        edition: outcome.edition,
        destination: outcome.destination,
        source_kind: outcome.sourceKind,
        tables,
      },
    };
  },
};
