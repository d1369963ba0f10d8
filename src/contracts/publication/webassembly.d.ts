/**
 * The one WebAssembly call sealkit makes: compiling PGlite's module ahead of
 * its start (docs/performance.md#a-new-embedded-ledger). Node has the API;
 * the ES2023 library and Node 20's types declare none of it.
 */
declare namespace WebAssembly {
  /** A compiled module, opaque here: it is handed to PGlite as it is. */
  type Module = object;
  function compile(bytes: Uint8Array): Promise<Module>;
}
