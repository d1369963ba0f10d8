import { interpretContractSchemas } from '../../contracts/index.js';

/**
 * Imported by the contract commands: a CLI run checks a few dozen documents
 * once, so zod checks them interpreted instead of compiling each schema
 * first (docs/performance.md#a-new-embedded-ledger). The CLI owns its
 * process, so the CLI sets this, never the library.
 */
interpretContractSchemas();
