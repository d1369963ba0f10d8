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
