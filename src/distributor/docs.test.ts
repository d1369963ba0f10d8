import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/helpers/cli.js';
import { refuseDistributor } from './refusals.js';
import { DISTRIBUTOR_VERSION } from './version.js';

describe('distributor documentation and metadata', () => {
  it('lists every reason code with its exact message in docs/distributor.md', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'distributor.md'), 'utf8');
    const missing = refuseDistributor.codes.filter((code) => {
      const spec = refuseDistributor.table[code];
      return !docs.includes(`| \`${code}\` | ${spec.category} | ${spec.message} |`);
    });
    expect(missing).toEqual([]);
  });

  it('writes the package version as distributor_version', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(DISTRIBUTOR_VERSION).toBe(pkg.version);
  });
});
