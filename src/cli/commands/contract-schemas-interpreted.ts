import { z } from 'zod';

/**
 * Imported first by `contract publish`, before any module that builds a
 * schema: zod decides when a schema is built whether it will compile it to
 * JavaScript at its first use. A CLI run checks a few dozen documents once,
 * and compiling the authoring and projection schemas cost more than all the
 * checks (4–5× the time of decoding six projections in a fresh process,
 * docs/performance.md#a-new-embedded-ledger). Without it zod runs the same
 * checks, interpreted. The CLI owns its process, so the CLI sets this,
 * never the library.
 */
z.config({ jitless: true });
