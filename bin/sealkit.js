#!/usr/bin/env node
// The installed entry point: the CLI bundle built from dist/ (`npm run build`).
import { endOnBrokenPipe, main } from '../dist/bundle/sealkit.js';

endOnBrokenPipe([process.stdout, process.stderr], (code) => process.exit(code), process.stderr);
const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
process.exitCode = code;
