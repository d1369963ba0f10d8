/** The `pgpass` package (node-postgres's password-file reader) ships no types. */
declare module 'pgpass' {
  interface PgPassConnection {
    readonly host?: unknown;
    readonly port?: unknown;
    readonly database?: unknown;
    readonly user?: unknown;
  }
  function pgpass(connection: PgPassConnection, done: (password: string | undefined) => void): void;
  export default pgpass;
}
