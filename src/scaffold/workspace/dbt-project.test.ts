import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dir } from '../../core/fs/index.js';
import { readDbtProject } from './dbt-project.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-dbt-project-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function read(text: string | Uint8Array) {
  writeFileSync(join(dir, 'dbt_project.yml'), text);
  const project = Dir.open(dir);
  try {
    return readDbtProject(project);
  } finally {
    project.close();
  }
}

describe("the scaffolder's dbt_project.yml check, on the core strict YAML reader", () => {
  it('reads the name and every dbt path, with defaults for unset ones', () => {
    expect(read('name: shop\nmodel-paths: ["models", "./more/"]\n')).toEqual({
      name: 'shop',
      paths: ['models', 'more', 'seeds', 'tests', 'analyses', 'macros', 'snapshots'],
    });
  });

  // A private domain: whatever the fault, the answer is only `undefined` (the
  // caller fails closed with its own code); nothing located ever leaves it.
  it.each([
    ['a repeated key', 'name: a\nname: b\n'],
    ['an anchor and alias', 'name: &n shop\nprofile: *n\n'],
    ['a BOM', '\ufeffname: shop\n'],
    ['tab indentation', 'name: shop\nmodels:\n\tx: 1\n'],
    ['two documents', 'name: shop\n---\nname: other\n'],
    ['no name', 'version: 2\n'],
    ['not a mapping', '- name: shop\n'],
  ])('returns undefined for %s, never throws', (_label, text) => {
    expect(read(text)).toBeUndefined();
  });

  it('returns undefined for bytes that are not UTF-8', () => {
    expect(read(Uint8Array.from([0x6e, 0x3a, 0x20, 0xff]))).toBeUndefined();
  });

  it('has paths undefined (fail closed) for a path it cannot prove relative', () => {
    expect(read('name: shop\nmodel-paths: ["../x"]\n')).toEqual({ name: 'shop', paths: undefined });
  });
});
