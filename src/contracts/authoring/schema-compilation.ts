/**
 * Whether zod may compile the contract schemas to JavaScript at their first
 * use. Compiling pays in a long-lived process that checks many documents; a
 * CLI run checks a few dozen once, and there the compilation cost more than
 * the checks (docs/performance.md#a-new-embedded-ledger). The CLI turns it
 * off for its own process; the library leaves zod's default. It is passed to
 * each check, not set in zod's global configuration, which zod reads when a
 * schema is built: in the bundled CLI the schemas are built before any
 * command module runs, so a global setting came too late.
 */
let compiled = true;

/** Checks run interpreted from now on, in this process. */
export function interpretContractSchemas(): void {
  compiled = false;
}

/** The options every contract schema check passes to zod. */
export function schemaCheckOptions(): { readonly jitless: boolean } {
  return { jitless: !compiled };
}
