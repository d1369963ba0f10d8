import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  cacheDir: join(process.env.SEALKIT_TEST_CACHE ?? tmpdir(), 'sealkit-vite-cache'),
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/setup/unprivileged.ts'],
    pool: 'forks',
    // Two test files at a time, also on two cores (vitest's default there is
    // one): most files wait on fsync, services and child processes, not on
    // the CPU (docs/development.md#running-the-tests).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
