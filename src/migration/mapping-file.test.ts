import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mappingsFingerprint } from './fingerprints.js';
import { loadMappingFile, readMappingDocument } from './mapping-file.js';
import { retailBundle } from './testing/bundles.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sealkit-mapping-file-'));
  roots.push(dir);
  return dir;
}

const MAPPING = JSON.stringify(retailBundle().mapping);

function refusal(path: string): { code: string; role?: string } {
  try {
    readMappingDocument(path);
  } catch (error: unknown) {
    const { code, role } = error as { code: string; role?: string };
    return { code, ...(role === undefined ? {} : { role }) };
  }
  return { code: 'read' };
}

describe('the mapping file rule: regular, non-symlink final component, ≤ 1 MiB, UTF-8, no duplicate keys', () => {
  it('reads a shared (0644) mapping, and one below a symlinked directory', () => {
    const dir = workDir();
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'mapping.json'), MAPPING, { mode: 0o644 });
    chmodSync(join(dir, 'real'), 0o755);
    symlinkSync(join(dir, 'real'), join(dir, 'via-link'));
    const direct = loadMappingFile(join(dir, 'real', 'mapping.json'));
    const linked = loadMappingFile(join(dir, 'via-link', 'mapping.json'));
    expect(mappingsFingerprint(linked)).toBe(mappingsFingerprint(direct));
    expect(mappingsFingerprint(direct)).toBe(retailBundle().dryRun.source_mapping_fingerprint);
  });

  it('refuses a symlink as the final component, even to a valid mapping, and a dangling one', () => {
    const dir = workDir();
    writeFileSync(join(dir, 'real.json'), MAPPING);
    symlinkSync(join(dir, 'real.json'), join(dir, 'mapping.json'));
    symlinkSync(join(dir, 'absent.json'), join(dir, 'dangling.json'));
    expect(refusal(join(dir, 'mapping.json'))).toEqual({
      code: 'scaffold_input_not_private',
      role: 'mapping',
    });
    expect(refusal(join(dir, 'dangling.json'))).toEqual({
      code: 'scaffold_input_not_private',
      role: 'mapping',
    });
  });

  it('regression: refuses a directory and a FIFO (without blocking on it) as not regular, not as not private', {
    timeout: 5000,
  }, () => {
    const dir = workDir();
    mkdirSync(join(dir, 'mapping.json'));
    expect(spawnSync('mkfifo', [join(dir, 'fifo.json')]).status).toBe(0);
    expect(refusal(join(dir, 'mapping.json'))).toEqual({
      code: 'scaffold_input_not_regular',
      role: 'mapping',
    });
    expect(refusal(join(dir, 'fifo.json'))).toEqual({ code: 'scaffold_input_not_regular', role: 'mapping' });
  });

  it('refuses a missing file, a missing directory and paths that cannot name a file as missing input', () => {
    const dir = workDir();
    writeFileSync(join(dir, 'file'), '{}');
    for (const path of [
      join(dir, 'absent.json'),
      join(dir, 'no', 'mapping.json'),
      join(dir, 'file', 'x.json'),
      '',
      `${dir}/`,
    ]) {
      expect(refusal(path)).toEqual({ code: 'scaffold_input_missing', role: 'mapping' });
    }
  });

  it('regression: refuses a file, or a folder above it, it may not read as unreadable, not as not private', () => {
    const dir = workDir();
    writeFileSync(join(dir, 'mapping.json'), MAPPING, { mode: 0o000 });
    expect(refusal(join(dir, 'mapping.json'))).toEqual({
      code: 'scaffold_input_unreadable',
      role: 'mapping',
    });
    mkdirSync(join(dir, 'closed'));
    writeFileSync(join(dir, 'closed', 'mapping.json'), MAPPING);
    chmodSync(join(dir, 'closed'), 0o000);
    try {
      expect(refusal(join(dir, 'closed', 'mapping.json'))).toEqual({
        code: 'scaffold_input_unreadable',
        role: 'mapping',
      });
    } finally {
      chmodSync(join(dir, 'closed'), 0o700);
    }
  });

  it.each([
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])],
    ['a byte order mark', Buffer.from(`\ufeff${MAPPING}`)],
    ['a duplicate key', Buffer.from('{"version": 1, "version": 1, "tables": {}}')],
    ['a duplicate key written with an escape', Buffer.from('{"version": 1, "\\u0076ersion": 1}')],
    ['an array', Buffer.from('[]')],
    ['an empty file', Buffer.alloc(0)],
    ['trailing data', Buffer.from(`${MAPPING} {}`)],
  ])('refuses %s as malformed', (_label, bytes) => {
    const dir = workDir();
    writeFileSync(join(dir, 'mapping.json'), bytes);
    expect(refusal(join(dir, 'mapping.json'))).toEqual({ code: 'scaffold_input_malformed', role: 'mapping' });
  });
});
