/**
 * The one interface both ledger backends implement: a caller-owned
 * connection or transaction that runs one parameterized statement. The
 * publication API only ever calls `query`; it never begins, commits or rolls
 * back — the caller decides where the transaction ends.
 */
export type LedgerParam = string | number | Uint8Array | null;
export type LedgerRow = Readonly<Record<string, unknown>>;

export interface LedgerSession {
  query(text: string, params?: readonly LedgerParam[]): Promise<readonly LedgerRow[]>;
}

/**
 * A database error reduced to what sealkit decides on: the SQLSTATE and the
 * constraint name. The driver's message (which may quote values) is dropped.
 */
export class LedgerSqlError extends Error {
  readonly sqlstate: string | undefined;
  readonly constraint: string | undefined;

  constructor(sqlstate: string | undefined, constraint: string | undefined) {
    super('ledger statement failed');
    this.name = 'LedgerSqlError';
    this.sqlstate = sqlstate;
    this.constraint = constraint;
  }
}

const SQLSTATE = /^[0-9A-Z]{5}$/;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Both drivers throw errors carrying `code` (SQLSTATE) and `constraint`; anything else has neither. */
export function ledgerSqlError(error: unknown): LedgerSqlError {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    readonly code?: unknown;
    readonly constraint?: unknown;
  };
  const code = typeof fields.code === 'string' && SQLSTATE.test(fields.code) ? fields.code : undefined;
  const constraint =
    typeof fields.constraint === 'string' && IDENTIFIER.test(fields.constraint)
      ? fields.constraint
      : undefined;
  return new LedgerSqlError(code, constraint);
}
