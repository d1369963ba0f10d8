import { join } from 'node:path';
import type { RefusalLocation } from '../../core/refusal/index.js';
import { FINDING_MESSAGES, type FindingCode } from './findings.js';

export type CheckStatus = 'passed' | 'failed';

/** A value of a failing row, as DuckDB returned it (text, number, boolean or NULL). */
export type RowValue = string | number | boolean | null;

/**
 * What the planner or the engine found, before paths are shown: the file is
 * project-relative here; `finding()` joins it onto the project as the user
 * named it. Everything variable is here, never in the message
 * (docs/editions.md#reading-an-error).
 */
export interface FindingDraft {
  readonly code: FindingCode;
  /** Project-relative file the finding is about. */
  readonly file?: string;
  /**
   * A file outside the project, as the user named it (a fixture CSV under
   * --fixtures): shown as it is, in place of `file`.
   */
  readonly path?: string;
  readonly line?: number;
  readonly column?: number;
  readonly pointer?: string;
  /** One line of advice, e.g. `did you mean 'silver_order_items'?`. */
  readonly hint?: string;
  /** The first line of DuckDB's own message (sql_parse_error, build_failed, test_error). */
  readonly detail?: string;
  /** Up to MAX_FAILING_ROWS failing rows of a schema test on the user's fixtures. */
  readonly failingRows?: readonly Readonly<Record<string, RowValue>>[];
  /**
   * Planning only, never reported: an `enabled` set in dbt_project.yml gates
   * many items, and their findings at one key share one hint naming them all.
   */
  readonly gated?: { readonly item: string; readonly hint?: string };
  /**
   * The finding this one follows from, where it is (a build that failed on a
   * column a fixture lacks: that fixture's `fixture_column_missing`).
   */
  readonly causedBy?: { readonly code: FindingCode; readonly path: string; readonly line?: number };
}

export const MAX_FAILING_ROWS = 5;

export function draft(code: FindingCode, extra: Omit<FindingDraft, 'code'> = {}): FindingDraft {
  return { code, ...extra };
}

export interface Finding {
  readonly reason_code: FindingCode;
  readonly message: string;
  /** Where: the file as the user would find it (the project folder as given, joined with its path), line, column, key path. */
  readonly location?: RefusalLocation;
  readonly hint?: string;
  readonly detail?: string;
  readonly failing_rows?: readonly Readonly<Record<string, RowValue>>[];
  /**
   * The finding this one follows from (its code and place), reported before
   * it: fix that one first (docs/editions.md#reading-an-error).
   */
  readonly caused_by?: { readonly reason_code: FindingCode; readonly location: RefusalLocation };
}

export function finding(found: FindingDraft | undefined, projectDir = '.'): Finding | undefined {
  if (found === undefined) return undefined;
  const location: { -readonly [K in keyof RefusalLocation]: RefusalLocation[K] } = {};
  if (found.path !== undefined) location.path = found.path;
  else if (found.file !== undefined) location.path = join(projectDir, found.file);
  if (found.line !== undefined) {
    location.line = found.line;
    if (found.column !== undefined) location.column = found.column;
  }
  if (found.pointer !== undefined && found.pointer !== '') location.pointer = found.pointer;
  return {
    reason_code: found.code,
    message: FINDING_MESSAGES[found.code],
    ...(Object.keys(location).length === 0 ? {} : { location }),
    ...(found.hint === undefined ? {} : { hint: found.hint }),
    ...(found.detail === undefined ? {} : { detail: found.detail }),
    ...(found.failingRows === undefined || found.failingRows.length === 0
      ? {}
      : { failing_rows: found.failingRows }),
    ...(found.causedBy === undefined
      ? {}
      : {
          caused_by: {
            reason_code: found.causedBy.code,
            location: {
              path: found.causedBy.path,
              ...(found.causedBy.line === undefined ? {} : { line: found.causedBy.line }),
            },
          },
        }),
  };
}

export interface FileReport {
  readonly path: string;
  readonly kind: 'project' | 'properties' | 'macros';
  readonly status: 'valid' | 'invalid';
  readonly finding?: Finding;
  /** Further independent findings in the same file (each unknown key, each unknown model name). */
  readonly also?: readonly Finding[];
  /** dbt schema rules that failed: keyword and where the rule sits in dbt's schema (never the offending value). */
  readonly violations: readonly { readonly keyword: string; readonly schema_path: string }[];
  /**
   * A properties file dbt's schema refuses: the tests written in it, none of
   * them run nor counted in the summary (its finding says where to fix it).
   */
  readonly tests_not_read?: number;
}

export interface SourceReport {
  readonly name: string;
  readonly path: string;
  readonly enabled: boolean;
  readonly status: 'passed' | 'failed' | 'disabled';
  readonly finding?: Finding;
  /** Rows loaded from the fixture, when fixtures were given and one exists. */
  readonly fixture_rows?: number;
}

export interface ModelReport {
  /** The model's name; `<name>.v<version>` for a version of a versioned model. */
  readonly name: string;
  /** A versioned model's version, as dbt writes it. */
  readonly version?: string;
  readonly fqn: string;
  readonly path: string;
  readonly enabled: boolean;
  readonly materialized: string;
  readonly tags: readonly string[];
  /** passed: rendered and parsed (and built, with fixtures); disabled: not part of this target. */
  readonly status: 'passed' | 'failed' | 'disabled';
  readonly built: boolean;
  readonly rows?: number;
  readonly finding?: Finding;
}

export interface TestReport {
  readonly name: string;
  /** The generic test's name as written (`not_null`, `dbt_utils.accepted_range`), or `singular`. */
  readonly kind: string;
  /** The model or `source.table`; for a singular test, every model and source table it reads. */
  readonly attached_to: string;
  /** The column; empty for a singular test. */
  readonly column: string;
  /** A singular test: its file in the project. */
  readonly path?: string;
  /** not_run: planned, but no fixtures were given to run it on. */
  readonly status: 'passed' | 'failed' | 'not_run';
  readonly failures?: number;
  readonly finding?: Finding;
}

export interface CheckSummary {
  readonly files: number;
  readonly files_invalid: number;
  readonly models_enabled: number;
  readonly models_disabled: number;
  readonly models_failed: number;
  readonly tests: number;
  readonly tests_passed: number;
  readonly tests_failed: number;
  readonly tests_not_run: number;
}

/** The per-file, per-model, per-test result of `sealkit edition check`. */
export interface CheckReport {
  readonly status: CheckStatus;
  readonly project: string;
  readonly target: string;
  readonly fixtures: boolean;
  /** Enabled models, as `dbt ls --resource-type model` lists them (fully qualified names, sorted). */
  readonly listed: readonly string[];
  readonly files: readonly FileReport[];
  readonly sources: readonly SourceReport[];
  readonly models: readonly ModelReport[];
  readonly tests: readonly TestReport[];
  readonly summary: CheckSummary;
  /**
   * Fixture files (as the user named them) whose table no source that was
   * read defines, while a properties file was not read: set aside, not
   * refused, so the file's own finding is reported (docs/editions.md).
   */
  readonly fixtures_not_loaded?: readonly string[];
}

/**
 * Every finding of a report in the order to read them: by file, then line
 * and column, as an editor walks them (findings without a file after those
 * with one); a finding that follows from another one reported here
 * (`caused_by`) right after that one, so the cause is read first; and the
 * findings that only say a model they need did not build
 * (`dependency_failed`) last. Within one place, report order (files,
 * sources, models, tests) stands. The same finding at the same place (one
 * `enabled` key gating many items) is listed once. Deterministic: the
 * order depends on the report alone.
 */
export function orderedFindings(report: CheckReport): readonly Finding[] {
  const all = [
    ...report.files.flatMap((file) =>
      file.finding === undefined ? [] : [file.finding, ...(file.also ?? [])],
    ),
    ...[...report.sources, ...report.models, ...report.tests].flatMap((item) =>
      item.finding === undefined ? [] : [item.finding],
    ),
  ];
  const follows = (found: Finding): boolean => found.reason_code === 'dependency_failed';
  const placed = inFileOrder(all.filter((found) => !follows(found)));
  const placeOf = (code: FindingCode, where: RefusalLocation | undefined): string =>
    JSON.stringify([code, where?.path, where?.line]);
  const present = new Set(placed.map((found) => placeOf(found.reason_code, found.location)));
  const causeOf = (found: Finding): string | undefined => {
    const cause = found.caused_by;
    const key = cause === undefined ? undefined : placeOf(cause.reason_code, cause.location);
    return key !== undefined && present.has(key) ? key : undefined;
  };
  const effects = new Map<string, Finding[]>();
  for (const found of placed) {
    const key = causeOf(found);
    if (key !== undefined) effects.set(key, [...(effects.get(key) ?? []), found]);
  }
  const seen = new Set<Finding>();
  const withEffects = (found: Finding): Finding[] => {
    if (seen.has(found)) return [];
    seen.add(found);
    return [found, ...(effects.get(placeOf(found.reason_code, found.location)) ?? []).flatMap(withEffects)];
  };
  const ordered = placed.filter((found) => causeOf(found) === undefined).flatMap(withEffects);
  return unique([...ordered, ...all.filter(follows)]);
}

/** The same finding at the same place once: --json keeps it on every item it concerns. */
function unique(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((found) => {
    const key = JSON.stringify(found);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A stable sort by path (unplaced last), then line, then column. */
function inFileOrder(findings: readonly Finding[]): Finding[] {
  const rank = (found: Finding): readonly [number, string, number, number] => {
    const where = found.location;
    return where?.path === undefined ? [1, '', 0, 0] : [0, where.path, where.line ?? 0, where.column ?? 0];
  };
  return [...findings].sort((a, b) => {
    const [ua, pa, la, ca] = rank(a);
    const [ub, pb, lb, cb] = rank(b);
    return ua - ub || (pa < pb ? -1 : pa > pb ? 1 : 0) || la - lb || ca - cb;
  });
}
