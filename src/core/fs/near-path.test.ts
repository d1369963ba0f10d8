import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { didYouMeanPath, MAX_LISTED_ENTRIES, nearPath } from './near-path.js';

describe('the path the operator most likely meant', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-near-path-'));
  });
  afterEach(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the file beside the missing one, as a did-you-mean line', () => {
    writeFileSync(join(dir, 'doc.json'), '{}');
    expect(nearPath(join(dir, 'doc.jsn'), 'file')).toBe(join(dir, 'doc.json'));
    expect(didYouMeanPath(join(dir, 'doc.jsn'), 'file')).toBe(`did you mean '${join(dir, 'doc.json')}'?`);
    expect(didYouMeanPath(join(dir, 'zzz.json'), 'file')).toBeUndefined();
  });

  it('takes a folder for a folder and a file for a file', () => {
    mkdirSync(join(dir, 'bq'));
    writeFileSync(join(dir, 'bqx'), '');
    expect(nearPath(join(dir, 'bqq'), 'folder')).toBe(join(dir, 'bq'));
    expect(nearPath(join(dir, 'bqq'), 'file')).toBe(join(dir, 'bqx'));
  });

  it('fixes the first missing folder of a path whose parent is missing too', () => {
    mkdirSync(join(dir, 'reports', 'w22'), { recursive: true });
    expect(nearPath(join(dir, 'reprots', 'w22', 'doc.md'), 'file')).toBe(
      join(dir, 'reports', 'w22', 'doc.md'),
    );
    // Week 2 is not week 22: a folder of another number is never offered.
    expect(nearPath(join(dir, 'reports', 'w2', 'doc.md'), 'file')).toBeUndefined();
    expect(nearPath(join(dir, 'reports', 'w23', 'doc.md'), 'file')).toBeUndefined();
    expect(nearPath(join(dir, 'reports', 'W22', 'doc.md'), 'file')).toBe(
      join(dir, 'reports', 'w22', 'doc.md'),
    );
    // A file cannot hold the rest of the path: it is not offered as a folder on the way.
    writeFileSync(join(dir, 'notes'), '');
    expect(nearPath(join(dir, 'note', 'doc.md'), 'file')).toBeUndefined();
  });

  it(`reads at most ${MAX_LISTED_ENTRIES} entries of the folder, and offers nothing past that`, () => {
    const crowded = join(dir, 'crowded');
    mkdirSync(crowded);
    writeFileSync(join(crowded, 'doc.json'), '{}');
    for (let index = 1; index < MAX_LISTED_ENTRIES; index += 1) writeFileSync(join(crowded, `f${index}`), '');
    expect(nearPath(join(crowded, 'doc.jsn'), 'file')).toBe(join(crowded, 'doc.json'));
    writeFileSync(join(crowded, 'one-more'), '');
    expect(nearPath(join(crowded, 'doc.jsn'), 'file')).toBeUndefined();
  });

  it('offers nothing when the folder cannot be listed', () => {
    writeFileSync(join(dir, 'doc.json'), '{}');
    chmodSync(dir, 0o300);
    expect(nearPath(join(dir, 'doc.jsn'), 'file')).toBeUndefined();
  });

  it('never offers a name that is not UTF-8 or holds a control character', () => {
    writeFileSync(Buffer.from([...Buffer.from(join(dir, 'doc.json')), 0xff]), '');
    writeFileSync(join(dir, 'doc.json\u0001'), '');
    expect(nearPath(join(dir, 'doc.jsonx'), 'file')).toBeUndefined();
    writeFileSync(join(dir, 'doc.jsony'), '');
    expect(nearPath(join(dir, 'doc.jsonx'), 'file')).toBe(join(dir, 'doc.jsony'));
  });

  it('never offers a link that leads nowhere', () => {
    writeFileSync(join(dir, 'target.json'), '{}');
    symlinkSync('missing.json', join(dir, 'dangling.json'));
    symlinkSync('looped.json', join(dir, 'looped.json'));
    symlinkSync('target.json', join(dir, 'linked.json'));
    expect(nearPath(join(dir, 'dangling.jsn'), 'file')).toBeUndefined();
    expect(nearPath(join(dir, 'looped.jsn'), 'file')).toBeUndefined();
    expect(nearPath(join(dir, 'linked.jsn'), 'file')).toBe(join(dir, 'linked.json'));
  });

  it('offers nothing when the path shown is not the one the open used', () => {
    writeFileSync(join(dir, 'doc.json'), '{}');
    const shown = join(dir, 'doc.jsn');
    expect(nearPath(shown, 'file', join(dir, '.', 'doc.jsn'))).toBe(join(dir, 'doc.json'));
    expect(nearPath(shown, 'file', join(dir, 'elsewhere', 'doc.jsn'))).toBeUndefined();
  });
});
