import { FINDING_MESSAGES, type FindingCode } from './findings.js';

export type CheckStatus = 'passed' | 'failed';

export interface Finding {
  readonly reason_code: FindingCode;
  readonly message: string;
}

export function finding(code: FindingCode | undefined): Finding | undefined {
  return code === undefined ? undefined : { reason_code: code, message: FINDING_MESSAGES[code] };
}

export interface FileReport {
  readonly path: string;
  readonly kind: 'project' | 'properties' | 'macros';
  readonly status: 'valid' | 'invalid';
  readonly finding?: Finding;
  /** dbt schema rules that failed: keyword and where the rule sits in dbt's schema (never the offending value). */
  readonly violations: readonly { readonly keyword: string; readonly schema_path: string }[];
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
  readonly name: string;
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
  readonly kind: string;
  readonly attached_to: string;
  readonly column: string;
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
}
