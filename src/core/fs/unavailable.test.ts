import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module (`npm test` runs `tsc -p tsconfig.build.json` first), loaded
// in a child whose platform or architecture is overridden before the first
// use: the binding decides once, on first use, and must then fail closed.
const built = fileURLToPath(new URL('../../../dist/src/core/fs/index.js', import.meta.url));

const PROBE = `
const [property, value, entry] = process.argv.slice(1);
Object.defineProperty(process, property, { value });
const fs = await import(entry);
const outcome = (action) => {
  try { action(); return 'ok'; } catch (error) { return error?.code ?? String(error); }
};
process.stdout.write(JSON.stringify({
  available: fs.fsPrimitivesAvailable(),
  open: outcome(() => fs.Dir.open('/')),
  openError: (() => { try { fs.Dir.open('/'); } catch (error) { return error instanceof fs.FsUnavailable; } })(),
  privateRead: outcome(() => fs.readPrivateJson('/etc/passwd')),
}));
`;

function probe(property: 'platform' | 'arch', value: string): unknown {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, property, value, built], {
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

describe('without the primitives', () => {
  it('finds the built module', () => {
    expect(existsSync(built)).toBe(true);
  });

  it.each([
    ['platform', 'darwin'],
    ['platform', 'win32'],
    ['arch', 'ppc64'],
  ] as const)('fails closed when %s is %s', (property, value) => {
    expect(probe(property, value)).toEqual({
      available: false,
      open: 'ERR_FS_UNAVAILABLE',
      openError: true,
      privateRead: 'private_unverifiable',
    });
  });

  it('is available with the real platform (the probe itself is sound)', () => {
    expect(probe('platform', 'linux')).toMatchObject({
      available: true,
      open: 'ok',
      privateRead: 'private_not_owned',
    });
  });
});
