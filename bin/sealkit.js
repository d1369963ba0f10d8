#!/usr/bin/env node
// The installed entry point: the compiled CLI lives in dist/ (`npm run build`).
import { main } from '../dist/src/cli/main.js';

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
process.exitCode = code;
