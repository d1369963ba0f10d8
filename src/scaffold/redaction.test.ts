import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScaffoldScratch } from '../../test/helpers/scaffold-workspace.js';
import { KEY_SENTINEL, LOCATED_FAULTS, scanForLocatedDetail } from '../../test/helpers/sentinels.js';
import { scaffold } from './index.js';

/**
 * The scaffolder's result carries a code, a role, an allowlisted field and
 * project-relative paths only: a located fault in its inputs (evidence JSON,
 * dbt_project.yml) never adds a line, column or hint
 * (docs/scaffold.md#the-result-object-and-exit-codes).
 */

const scratch = new ScaffoldScratch('redaction');
afterAll(() => scratch.dispose());

const LOCATED_KEYS = ['location', 'hint', 'line', 'column', 'pointer', 'also'];

function expectUnlocated(result: object): void {
  for (const key of LOCATED_KEYS) expect(Object.keys(result)).not.toContain(key);
  const text = JSON.stringify(result);
  expect(scanForLocatedDetail({ stdout: text, stderr: '' })).toEqual([]);
  expect(text).not.toContain(KEY_SENTINEL);
}

describe('scaffold refuses located faults without a location', () => {
  it.each(LOCATED_FAULTS)('$name in the mapping file', async ({ bytes }) => {
    const fixture = scratch.fixture('bigquery');
    writeFileSync(fixture.evidence.mappingFile, bytes);
    const result = await scaffold(fixture.options());
    expect(result).toMatchObject({ status: 'refused', reason_codes: ['scaffold_input_malformed'] });
    expectUnlocated(result);
  });

  it('a dbt_project.yml repeating a key', async () => {
    const fixture = scratch.fixture('snowflake');
    writeFileSync(
      join(fixture.project, 'dbt_project.yml'),
      `name: shop\nversion: "1.0"\n${KEY_SENTINEL}: 1\n${KEY_SENTINEL}: 2\n`,
    );
    const result = await scaffold(fixture.options());
    expect(result.status).toBe('refused');
    expectUnlocated(result);
  });
});
