import nunjucks from 'nunjucks';
import type { FindingCode } from './findings.js';
import type { YamlMapping, YamlValue } from './yaml.js';

/**
 * The render harness: dbt's Jinja rendered with nunjucks and stubs for the
 * parts of dbt's context the editions use. Nunjucks is not Jinja; the
 * editions keep to the subset both render alike (see docs/editions.md):
 * macros with positional arguments, if/for/set, filters such as join and
 * upper, `in`/`not in`, dict and list literals, and
 * `adapter.dispatch('name', 'project')(args)` instead of `return(...)`.
 *
 * Every failure is classified into a finding code; engine error text is
 * dropped, never reported.
 */
export interface RenderContext {
  readonly projectName: string;
  readonly target: string;
  /** --vars, highest precedence. */
  readonly cliVars: YamlMapping;
  /** `vars:` from dbt_project.yml; not visible while rendering dbt_project.yml itself. */
  readonly projectVars: YamlMapping;
  /** The environment env_var() reads. */
  readonly env: Readonly<Record<string, string>>;
}

/** Answers ref() and source() while rendering; returns undefined for a name the project lacks. */
export interface RelationResolver {
  model(name: string): string | undefined;
  source(source: string, table: string): string | undefined;
}

export interface RenderRecord {
  readonly refs: readonly string[];
  readonly sources: readonly (readonly [string, string])[];
  readonly configs: readonly YamlMapping[];
}

export type RenderOutcome =
  | { readonly ok: true; readonly text: string; readonly record: RenderRecord }
  | {
      readonly ok: false;
      readonly code: FindingCode;
      readonly record: RenderRecord;
      /** The name the failure is about, from the user's own template: a ref, `source.table`, var or macro. */
      readonly subject?: string;
      /** jinja_syntax: where the template stops compiling (1-based), as nunjucks reports it. */
      readonly line?: number;
      readonly column?: number;
    };

/** nunjucks' own way to collect a template's top-level macros (used by `{% import %}`); untyped upstream. */
interface ExportingTemplate {
  getExported(
    context: object,
    callback: (error: Error | null, macros: Record<string, unknown>) => void,
  ): void;
}

/** Raised by a stub; nunjucks rewraps errors, so the code travels through `failure` instead. */
class StubFailure extends Error {}

interface MacroFile {
  readonly path: string;
  readonly text: string;
}

export interface MacroProblem {
  readonly path: string;
  readonly code: FindingCode;
  readonly line?: number;
  readonly column?: number;
  /** duplicate_macro: the macro name that is defined twice. */
  readonly subject?: string;
}

/**
 * Line and column of a nunjucks compile error. nunjucks rewraps the error and
 * keeps the position only in its message, as `[Line 2, Column 10]` (1-based);
 * only those two numbers are read, never the rest of the message, which
 * quotes the template. An error at the end of the file has no position.
 */
function compilePlace(error: unknown): { line?: number; column?: number } {
  const message = error instanceof Error ? error.message : '';
  const match = /\[Line ([0-9]{1,9}), Column ([0-9]{1,9})\]/.exec(message);
  if (match === null) return {};
  const line = Number(match[1]);
  const column = Number(match[2]);
  if (line < 1) return {};
  return column >= 1 ? { line, column } : { line };
}

const MACRO_NAME = /\{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;

export class JinjaHarness {
  readonly #env: nunjucks.Environment;
  readonly #context: RenderContext;
  readonly #macros: nunjucks.Template | undefined;
  readonly macroProblems: readonly MacroProblem[];
  readonly #secrets = new Set<string>();

  /**
   * Every text value handed out by var() and env_var() so far: they may end
   * up in rendered SQL and so in DuckDB's messages, which are shown only
   * with these values masked (docs/editions.md#reading-an-error).
   */
  get secrets(): readonly string[] {
    return [...this.#secrets];
  }

  #reveal(value: unknown): unknown {
    // Shorter values are not worth masking and would garble the message.
    if (typeof value === 'string' && value.length >= 3) this.#secrets.add(value);
    return value;
  }

  constructor(macroFiles: readonly MacroFile[], context: RenderContext) {
    this.#env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
    this.#context = context;
    const problems: MacroProblem[] = [];
    const usable: MacroFile[] = [];
    const owners = new Map<string, string>();
    for (const file of macroFiles) {
      const failed = this.#compileError(file.text);
      if (failed !== undefined) {
        problems.push({ path: file.path, code: 'jinja_syntax', ...failed });
        continue;
      }
      let duplicate: string | undefined;
      for (const match of file.text.matchAll(MACRO_NAME)) {
        const name = match[1] ?? '';
        if (owners.has(name)) duplicate ??= name;
        else owners.set(name, file.path);
      }
      if (duplicate !== undefined)
        problems.push({ path: file.path, code: 'duplicate_macro', subject: duplicate });
      else usable.push(file);
    }
    this.macroProblems = problems;
    const joined = usable.map((file) => file.text).join('\n');
    this.#macros = joined.length === 0 ? undefined : new nunjucks.Template(joined, this.#env, 'macros', true);
  }

  #compileError(text: string): { line?: number; column?: number } | undefined {
    try {
      new nunjucks.Template(text, this.#env, 'template', true);
      return undefined;
    } catch (error: unknown) {
      return compilePlace(error);
    }
  }

  /**
   * Renders a template. `withMacros` makes the project's macros callable;
   * `withProjectVars` is false only for dbt_project.yml, as in dbt.
   */
  render(
    text: string,
    resolver: RelationResolver,
    options: { readonly withMacros: boolean; readonly withProjectVars: boolean; readonly self?: string },
  ): RenderOutcome {
    const refs: string[] = [];
    const sources: (readonly [string, string])[] = [];
    const configs: YamlMapping[] = [];
    const record: RenderRecord = { refs, sources, configs };
    let failure: FindingCode | undefined;
    let subject: string | undefined;
    const fail = (code: FindingCode, about?: unknown): never => {
      if (failure === undefined) {
        failure = code;
        if (typeof about === 'string') subject = about;
      }
      throw new StubFailure(code);
    };
    const { projectName, target, cliVars, projectVars, env } = this.#context;
    let exported: Record<string, unknown> = {};

    const context: Record<string, unknown> = {
      target: { name: target, type: 'duckdb', schema: 'main', database: 'memory', profile_name: projectName },
      project_name: projectName,
      this: options.self ?? '',
      ref: (...args: unknown[]): string => {
        const positional = args.filter((arg) => !isKeywords(arg));
        const [first, second] = positional;
        const name = positional.length === 2 ? second : first;
        if (positional.length === 2 && first !== projectName) fail('undefined_ref', name);
        if (typeof name !== 'string' || positional.length > 2) return fail('undefined_ref');
        const relation = resolver.model(name);
        if (relation === undefined) return fail('undefined_ref', name);
        refs.push(name);
        return relation;
      },
      source: (source: unknown, table: unknown): string => {
        if (typeof source !== 'string' || typeof table !== 'string') return fail('undefined_source');
        const relation = resolver.source(source, table);
        if (relation === undefined) return fail('undefined_source', `${source}.${table}`);
        sources.push([source, table]);
        return relation;
      },
      config: (...args: unknown[]): string => {
        for (const arg of args) {
          const value = toYaml(arg);
          if (value !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value))
            configs.push(value as YamlMapping);
        }
        return '';
      },
      var: (...args: unknown[]): unknown => {
        const name = args[0];
        if (typeof name !== 'string') return fail('undefined_var');
        if (Object.hasOwn(cliVars, name)) return this.#reveal(cliVars[name]);
        if (options.withProjectVars && Object.hasOwn(projectVars, name))
          return this.#reveal(projectVars[name]);
        if (args.length >= 2 && !isKeywords(args[1])) return args[1];
        return fail('undefined_var', name);
      },
      env_var: (...args: unknown[]): unknown => {
        const name = args[0];
        if (typeof name !== 'string') return fail('undefined_env_var');
        if (Object.hasOwn(env, name)) return this.#reveal(env[name]);
        if (args.length >= 2 && !isKeywords(args[1])) return args[1];
        return fail('undefined_env_var');
      },
      is_incremental: (): boolean => false,
      log: (): string => '',
      exceptions: {
        raise_compiler_error: (): never => fail('compiler_error'),
        warn: (): string => '',
      },
      adapter: {
        dispatch: (name: unknown, namespace?: unknown): unknown => {
          if (typeof name !== 'string') return fail('undefined_macro');
          if (namespace !== undefined && namespace !== null && namespace !== projectName)
            return fail('undefined_macro');
          const macro = exported[`duckdb__${name}`] ?? exported[`default__${name}`];
          if (typeof macro !== 'function') return fail('undefined_macro', name);
          return macro;
        },
      },
    };

    try {
      if (options.withMacros && this.#macros !== undefined) {
        // Sound: nunjucks' Template has getExported at run time, but its type
        // declarations leave it out; ExportingTemplate names just that method.
        (this.#macros as unknown as ExportingTemplate).getExported(context, (error, macros) => {
          if (error !== null) throw error;
          exported = macros;
        });
      }
      let template: nunjucks.Template;
      try {
        template = new nunjucks.Template(text, this.#env, 'template', true);
      } catch (error: unknown) {
        return { ok: false, code: 'jinja_syntax', record, ...compilePlace(error) };
      }
      const rendered = template.render({ ...exported, ...context });
      return { ok: true, text: rendered, record };
    } catch (error: unknown) {
      return {
        ok: false,
        code: failure ?? classify(error),
        record,
        ...(failure !== undefined && subject !== undefined ? { subject } : {}),
      };
    }
  }
}

function classify(error: unknown): FindingCode {
  const message = error instanceof Error ? error.message : '';
  if (message.includes('Unable to call')) return 'undefined_macro';
  if (message.includes('attempted to output null or undefined value')) return 'undefined_variable';
  if (
    message.includes('Cannot read properties of undefined') ||
    message.includes('Cannot read properties of null')
  )
    return 'undefined_variable';
  return 'render_error';
}

function isKeywords(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { __keywords?: unknown }).__keywords === true
  );
}

/** Values handed to config() become plain YAML-shaped data; anything else is dropped. */
function toYaml(value: unknown): YamlValue | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items = value.map(toYaml);
    return items.every((item) => item !== undefined) ? (items as YamlValue[]) : undefined;
  }
  if (typeof value === 'object') {
    const out: { [key: string]: YamlValue } = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (key === '__keywords') continue;
      const converted = toYaml(item);
      if (converted !== undefined) Object.defineProperty(out, key, { value: converted, enumerable: true });
    }
    return out;
  }
  return undefined;
}

/** dbt renders `True`/`False` (Python); nunjucks `true`/`false`: both read as booleans. */
export function renderedBoolean(
  value: YamlValue | undefined,
  render: (text: string) => RenderOutcome,
): boolean | FindingCode | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return 'config_not_boolean';
  const outcome = render(value);
  if (!outcome.ok) return outcome.code;
  const text = outcome.text.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  return 'config_not_boolean';
}
