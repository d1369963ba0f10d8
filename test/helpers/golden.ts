import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';

/**
 * Compares `actual` with the golden file at `path`, byte for byte. With
 * `SEALKIT_UPDATE_GOLDEN=1` a missing or different golden file is written
 * instead (then review the diff before committing it); without it a missing
 * golden file fails the test, so a new case cannot pass unseen.
 */
export function expectGolden(path: string, actual: string): void {
  const update = process.env.SEALKIT_UPDATE_GOLDEN === '1';
  if (update && (!existsSync(path) || readFileSync(path, 'utf8') !== actual)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path))
    throw new Error(`missing golden file ${path}: run with SEALKIT_UPDATE_GOLDEN=1 and review it`);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}
