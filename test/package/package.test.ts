import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

// What `npm pack` ships and whether the packed tarball installs and runs, as a
// user would install it (docs/development.md#the-package).

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const work = mkdtempSync(join(tmpdir(), 'sealkit-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function npm(
  args: readonly string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('npm', [...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function packedFiles(): readonly string[] {
  const packed = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], REPO_ROOT);
  expect(packed.status).toBe(0);
  const [entry] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
  return entry.files.map((file) => file.path).sort();
}

describe('the package', () => {
  it('ships the CLI, the library, the starter editions, the JSON Schemas and the licence, and no test code', () => {
    const files = packedFiles();
    const tops = [
      ...new Set(
        files.map((path) =>
          path.startsWith('dist/') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0],
        ),
      ),
    ];
    expect(tops.sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'dist/bundle',
      'dist/src',
      'docs',
      'editions',
      'examples',
      'package.json',
      'src',
    ]);
    expect(files).toContain('bin/sealkit.js');
    // What bin/sealkit.js loads (scripts/bundle.mjs).
    expect(files).toContain('dist/bundle/sealkit.js');
    expect(files).toContain('dist/src/index.js');
    // The CLI's modules reach users through the bundle only.
    expect(files.filter((path) => path.startsWith('dist/src/cli/'))).toEqual([]);
    // The example contract project the README's first steps copy, and nothing else of examples/.
    expect(files).toContain('examples/contracts/retail/sources/orders.yaml');
    expect(
      files.filter((path) => path.startsWith('examples/') && !path.startsWith('examples/contracts/retail/')),
    ).toEqual([]);
    expect(files).toContain('docs/schemas/distributor-config.schema.json');
    expect(files).toContain('docs/schemas/contracts/source.schema.json');
    // Regression: only docs/schemas shipped, so the README's links and the hints that name a guide
    // (docs/contracts.md#model-sql, …) led nowhere in an installed package.
    expect(files).toContain('docs/contracts.md');
    expect(files).toContain('docs/distributor.md');
    expect(
      files.filter(
        (path) =>
          path.startsWith('src/') &&
          !path.startsWith('src/editions/dbt-jsonschema/') &&
          path !== 'src/contracts/publication/template/pgdata.tar.gz',
      ),
    ).toEqual([]);
    // A new embedded ledger starts from this data directory (docs/contracts.md#embedded-ledger).
    expect(files).toContain('src/contracts/publication/template/pgdata.tar.gz');
    // Test fixtures and builders stay in the repository.
    const testCode = files.filter(
      (path) =>
        /\.test\.|\/testdata\//.test(path) ||
        /^dist\/src\/(owner\/fixtures|migration\/testing|contracts\/fixtures|contracts\/publication\/fixtures)/.test(
          path,
        ),
    );
    expect(testCode).toEqual([]);
  });

  it('installs from the packed tarball into a fresh prefix and runs: --version, a job, the library', () => {
    const pack = npm(['pack', '--ignore-scripts', '--pack-destination', work], REPO_ROOT);
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = join(work, `sealkit-${version}.tgz`);
    expect(existsSync(tarball)).toBe(true);
    const prefix = join(work, 'prefix');
    const install = npm(
      ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball],
      work,
    );
    expect(install.status, install.stderr).toBe(0);

    const bin = join(prefix, 'bin', 'sealkit');
    const run = (args: readonly string[]) => spawnSync(bin, [...args], { cwd: work, encoding: 'utf8' });
    const versionRun = run(['--version']);
    expect(versionRun.stdout).toBe(`${version}\n`);
    expect(versionRun.status).toBe(0);

    writeFileSync(join(work, 'doc.json'), '{"b":1,"a":[true,null]}');
    const digest = run(['json', 'canonicalize', 'doc.json']);
    expect(digest.status, digest.stderr).toBe(0);
    expect(digest.stdout).toBe('{"a":[true,null],"b":1}');

    const installed = join(prefix, 'lib', 'node_modules', 'sealkit');
    expect(existsSync(join(installed, 'docs', 'schemas', 'distributor-config.schema.json'))).toBe(true);
    // Every guide the installed README links to is there beside it.
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1] ?? '');
    expect(linked.length).toBeGreaterThan(5);
    expect(linked.filter((path) => !existsSync(join(installed, path)))).toEqual([]);
    // The README's first steps for a user: copy the shipped example, validate it (DuckDB parses its SQL).
    cpSync(join(installed, 'examples', 'contracts', 'retail'), join(work, 'retail'), { recursive: true });
    const validate = run(['contract', 'validate', 'retail']);
    expect(validate.stderr).toBe('');
    expect(validate.stdout).toMatch(
      /^8 resources valid \(2 Dashboard, 2 Model, 2 SemanticModel, 2 Source\)$/m,
    );
    expect(validate.status).toBe(0);
    // A project that depends on the installed package imports it by name.
    const app = join(work, 'app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    symlinkSync(installed, join(app, 'node_modules', 'sealkit'));
    const library = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        // A page rendered by the installed library carries the stylesheet its dependency ships.
        "const m = await import('sealkit'); const page = Buffer.from(m.renderMarkdownPage(Buffer.from('# x'), 'x')).toString(); console.log(typeof m.parseStrict, page.includes('github-markdown-css 5.9.0'))",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(library.stderr).toBe('');
    expect(library.stdout).toBe('function true\n');
  }, 600_000);
});
