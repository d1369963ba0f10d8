import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { baseProject, filesOf, writeProjectTree } from '../fixtures/resources.js';
import type { SqlParser } from '../sql/parser.js';
import { ContractProject } from './contract-project.js';
import { DEFAULT_PROJECT_LIMITS, readContractProjectFiles } from './load.js';

describe('reading a project folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-contract-load-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const refusal = (action: () => unknown) => {
    try {
      action();
    } catch (error: unknown) {
      return (error as { code?: string }).code;
    }
    return 'accepted';
  };

  it('reads YAML files in byte order of their relative path, skipping dot entries and other files', () => {
    writeProjectTree(dir, baseProject());
    writeFileSync(join(dir, 'README.md'), '# notes\n');
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'x.yaml'), 'not: read\n');
    writeFileSync(join(dir, 'models', 'extra.yml'), 'kind: Dashboard\n');
    expect(readContractProjectFiles(dir).map((file) => file.path)).toEqual([
      'dashboards/sales.yaml',
      'models/extra.yml',
      'models/facts.yaml',
      'semantic/orders.yaml',
      'sources/orders.yaml',
    ]);
  });

  it('refuses a FIFO (it would block a reader) and a non-UTF-8 file name', () => {
    writeProjectTree(dir, baseProject());
    execFileSync('mkfifo', [join(dir, 'sources', 'pipe.yaml')]);
    expect(refusal(() => readContractProjectFiles(dir))).toBe('contract_project_entry_unsupported');
    rmSync(join(dir, 'sources', 'pipe.yaml'));
    writeFileSync(
      Buffer.concat([Buffer.from(`${dir}/sources/`), Buffer.from([0xff, 0x2e, 0x79, 0x61, 0x6d, 0x6c])]),
      'kind: Source\n',
    );
    expect(refusal(() => readContractProjectFiles(dir))).toBe('contract_project_entry_unsupported');
  });

  it('refuses a project beyond its file count, depth or total size, before holding the bytes', () => {
    writeProjectTree(dir, baseProject());
    expect(refusal(() => readContractProjectFiles(dir, { ...DEFAULT_PROJECT_LIMITS, maxFiles: 3 }))).toBe(
      'contract_project_too_large',
    );
    expect(refusal(() => readContractProjectFiles(dir, { ...DEFAULT_PROJECT_LIMITS, maxDepth: 1 }))).toBe(
      'contract_project_too_large',
    );
    expect(
      refusal(() => readContractProjectFiles(dir, { ...DEFAULT_PROJECT_LIMITS, maxTotalBytes: 600 })),
    ).toBe('contract_project_too_large');
    expect(
      refusal(() => readContractProjectFiles(dir, { ...DEFAULT_PROJECT_LIMITS, maxFileBytes: 100 })),
    ).toBe('contract_file_too_large');
  });
});

describe('a project beyond its bounds', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-contract-bounds-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const refusalOf = (limits: typeof DEFAULT_PROJECT_LIMITS) => {
    try {
      readContractProjectFiles(dir, limits);
    } catch (error: unknown) {
      return error as { code?: string; hint?: string; location?: { path?: string } };
    }
    throw new Error('expected a refusal');
  };

  it('regression: the too-large refusal states the bound crossed and every bound, at the project or folder', () => {
    writeProjectTree(dir, baseProject());
    const bounds = 'bounds: 3 files, 1 MiB each, 256 MiB in total, 8 levels deep';
    expect(refusalOf({ ...DEFAULT_PROJECT_LIMITS, maxFiles: 3 })).toMatchObject({
      code: 'contract_project_too_large',
      location: { path: dir },
      hint: `a project holds at most 3 resource files (${bounds})`,
    });
    const small = refusalOf({ ...DEFAULT_PROJECT_LIMITS, maxTotalBytes: 600 });
    expect(small).toMatchObject({
      code: 'contract_project_too_large',
      location: { path: dir },
      hint: 'the resource files of a project hold at most 600 bytes together (bounds: 20,000 files, 1 MiB each, 600 bytes in total, 8 levels deep)',
    });
    mkdirSync(join(dir, 'sources', 'nested'));
    expect(refusalOf({ ...DEFAULT_PROJECT_LIMITS, maxDepth: 2 })).toMatchObject({
      code: 'contract_project_too_large',
      location: { path: join(dir, 'sources', 'nested') },
      hint: 'a project is at most 2 levels deep (its own files are at level 1); the files of this folder would be at level 3 (bounds: 20,000 files, 1 MiB each, 256 MiB in total, 2 levels deep)',
    });
  });
});

describe('a SQL parser adapter that cannot answer', () => {
  it('fails closed with contract_sql_parser_unavailable instead of projecting without SQL', async () => {
    const broken: SqlParser = {
      serialize: () => Promise.reject(new Error('/private/path/libduckdb.so: cannot open shared object')),
      close() {},
    };
    await expect(ContractProject.fromFiles(filesOf(baseProject()), broken)).rejects.toMatchObject({
      code: 'contract_sql_parser_unavailable',
      message: 'the SQL parser could not be loaded',
    });
  });
});
