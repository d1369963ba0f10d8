import { guardRefusalsAsync, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { type CheckRun, runCheck, unknownFixtureTables } from './apply.js';
import { readFixtureFolders } from './fixtures.js';
import { type CheckOptions, planCheck } from './plan.js';
import { readProjectFiles } from './project-files.js';
import { loadDbtSchemas } from './schemas.js';
import { isMapping, parseYaml, type YamlMapping, yamlFaultHint } from './yaml.js';

export interface CheckProjectOptions {
  readonly target?: string;
  /** --vars: a YAML mapping as text, or an already parsed mapping. */
  readonly vars?: string | YamlMapping;
  /** What env_var() sees; default: none (pass process.env to use the real environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Directories of `<source>/<table>.csv` Bronze fixtures, read in order: a
   * table of a later directory replaces the same table of an earlier one
   * (e.g. the workspace's fixtures, then the synthetic Bronze rows
   * `sealkit evidence synth` wrote for a scaffolded source).
   */
  readonly fixtures?: string | readonly string[];
  readonly captureRows?: readonly string[];
}

export const MAX_VARS_BYTES = 64 * 1024;

const VARS_EXAMPLE = "write a mapping such as --vars '{enable_migration_models: true}'";

/**
 * Where a refusal of --vars points: the flag, since the value was typed on
 * the command line, not read from a file (`--> --vars:1:6`).
 */
const VARS_PATH = '--vars';

/**
 * Parses --vars: one YAML mapping (e.g. `{enable_migration_models: true}`);
 * an empty value is no vars. A refusal names the flag, with the line and
 * column inside the value (it is the user's own argument), never the value
 * itself.
 */
export function parseVars(text: string): YamlMapping {
  if (text.trim() === '') return {};
  if (Buffer.byteLength(text, 'utf8') > MAX_VARS_BYTES)
    throw refuseEdition('vars_invalid', {
      location: { path: VARS_PATH },
      hint: `--vars is longer than ${MAX_VARS_BYTES} bytes`,
    });
  const parsed = parseYaml(text);
  if (!parsed.ok) {
    const { line, column, pointer } = parsed.place;
    throw refuseEdition('vars_invalid', {
      location: {
        path: VARS_PATH,
        ...(line === undefined ? {} : { line }),
        ...(line === undefined || column === undefined ? {} : { column }),
        ...(pointer === undefined ? {} : { pointer }),
      },
      // A repeated key names itself; any other fault gets an example of the form.
      hint:
        parsed.fault === 'duplicate_key'
          ? yamlFaultHint(parsed.fault, parsed.place)
          : `${yamlFaultHint(parsed.fault, parsed.place)}; ${VARS_EXAMPLE}`,
    });
  }
  if (!isMapping(parsed.value))
    throw refuseEdition('vars_invalid', {
      location: { path: VARS_PATH, line: parsed.node.at.line, column: parsed.node.at.column },
      hint: VARS_EXAMPLE,
    });
  return parsed.value;
}

/**
 * `sealkit edition check`: reads the project (and fixtures), plans without
 * I/O, then parses, builds and tests in an in-memory DuckDB. Refusals are
 * for inputs the check cannot read; everything it finds is in the report.
 */
export async function checkProject(projectDir: string, options: CheckProjectOptions = {}): Promise<CheckRun> {
  return guardRefusalsAsync(async () => {
    const vars = typeof options.vars === 'string' ? parseVars(options.vars) : (options.vars ?? {});
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
    const checkOptions: CheckOptions = { target: options.target ?? 'default', vars, env };
    const files = readProjectFiles(projectDir);
    const read = options.fixtures === undefined ? undefined : readFixtureFolders(options.fixtures);
    const plan = planFaultsFirst(read?.faults ?? [], () => planCheck(files, loadDbtSchemas(), checkOptions));
    const fixtures = read?.set;
    if (read !== undefined && read.faults.length > 0)
      // Fixture problems are listed all at once: the files that cannot be
      // read and the tables no source defines (docs/editions.md).
      throw refuseAll([...read.faults, ...unknownFixtureTables(plan, read.set)]);
    return runCheck(plan, {
      ...(fixtures === undefined ? {} : { fixtures }),
      ...(options.captureRows === undefined ? {} : { captureRows: options.captureRows }),
    });
  });
}

/**
 * The plan. The fixtures are read before planning, so when they have faults
 * and planning is refused too, the fixtures' faults are what is reported.
 */
function planFaultsFirst<T>(faults: readonly Refusal[], plan: () => T): T {
  if (faults.length === 0) return plan();
  try {
    return plan();
  } catch {
    throw refuseAll(faults);
  }
}
