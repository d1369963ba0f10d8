import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { scaffold } from './run.js';

const scratch = new ScaffoldScratch('conditions');
afterAll(() => scratch.dispose());

// docs/scaffold.md#the-result-object-and-exit-codes: status is the most severe condition, reason_codes lists every one,
// in precedence order, in a dry run and a default run alike. Regression: a
// symlink at the output beside an abandoned staging directory listed only
// symlink_refused.
describe('every collision is listed, most decisive first', () => {
  const cases = [
    {
      name: 'a symlink at the output and an abandoned staging directory',
      plant: (output: string, outside: string) => symlinkSync(outside, output),
      codes: ['symlink_refused', 'staging_exists'],
    },
    {
      name: 'an existing output and an abandoned staging directory',
      plant: (output: string) => mkdirSync(output, { mode: 0o700 }),
      codes: ['output_exists', 'staging_exists'],
    },
  ];

  it.each(cases)('$name', async ({ plant, codes }) => {
    const fixture = scratch.fixture('bigquery');
    mkdirSync(join(fixture.project, 'models', 'migration', 'generated'), { mode: 0o700 });
    plant(fixture.output, scratch.dir('outside'));
    mkdirSync(fixture.staging, { recursive: true, mode: 0o700 });
    const before = fixture.snapshot();
    for (const dryRun of [true, false]) {
      const result = await scaffold(fixture.options({ dryRun }));
      expect(result, `dry run: ${dryRun}`).toMatchObject({
        status: 'refused',
        reason_codes: codes,
        stage: 'preflight',
        output: `models/migration/generated/${SOURCE_ID}`,
        staging: `.scaffold-staging/${SOURCE_ID}`,
        repair: `chmod -R u+w .scaffold-staging/${SOURCE_ID} && rm -r .scaffold-staging/${SOURCE_ID}`,
      });
      expect(fixture.snapshot()).toEqual(before);
    }
  });
});
