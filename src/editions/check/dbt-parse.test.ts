import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EDITION_PROJECTS } from '../../../test/helpers/edition-trees.js';

/**
 * Where a real dbt is installed (with the BigQuery and Snowflake adapters),
 * the editions must also pass `dbt parse` with the placeholder CI profile, for
 * the migration target with the gate open, and `dbt ls` under the default
 * target must list no migration model. sealkit's machines have no dbt (no
 * Python package index): then this test proves dbt is really absent and
 * says so, instead of passing silently.
 */
describe('dbt parse on the editions (when dbt is installed)', () => {
  it.each(['bigquery', 'snowflake'] as const)('the %s edition', (edition) => {
    const probe = spawnSync('dbt', ['--version'], { encoding: 'utf8' });
    if (probe.error !== undefined) {
      expect((probe.error as NodeJS.ErrnoException).code).toBe('ENOENT');
      process.stdout.write(
        `notice: dbt is not installed here; \`dbt parse\` of the ${edition} edition was not run (sealkit edition check stands in for it)\n`,
      );
      return;
    }
    const work = mkdtempSync(join(tmpdir(), 'sealkit-dbt-parse-'));
    try {
      const project = join(work, 'project');
      cpSync(EDITION_PROJECTS[edition], project, { recursive: true });
      const common = ['--profiles-dir', '.ci'];
      const parse = spawnSync(
        'dbt',
        ['parse', ...common, '--target', 'migration', '--vars', '{enable_migration_models: true}'],
        { cwd: project, encoding: 'utf8' },
      );
      expect(parse.status).toBe(0);
      const list = spawnSync('dbt', ['ls', ...common, '--resource-type', 'model', '--output', 'name'], {
        cwd: project,
        encoding: 'utf8',
      });
      expect(list.status).toBe(0);
      expect(list.stdout).not.toMatch(/migration_silver_/);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
