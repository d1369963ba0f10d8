// `npm test` must work as root wherever the checkout is, even where the
// unprivileged test account cannot read it. This check clones the committed
// HEAD twice, as a newcomer would, and runs `npm test` on one test file in
// each clone:
//   - inside a `mktemp -d` folder (mode 0700, so the account cannot enter it);
//   - with umask 077 in a folder everyone can enter (files 0600, folders 0700).
// It passes only when the suite really ran there as the unprivileged account
// and both clones keep the permissions they were made with.
// See docs/development.md#running-the-tests.
//
// Usage (as root): node scripts/check-private-clone.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const probe = 'test/unprivileged.test.ts';

if (process.geteuid?.() !== 0) {
  process.stderr.write('check-private-clone: run as root (it proves how `npm test` behaves for root)\n');
  process.exit(2);
}

function fail(message) {
  process.stderr.write(`check-private-clone: FAILED: ${message}\n`);
  process.exit(1);
}

function clone(parent, umask) {
  const target = join(parent, 'sealkit');
  const result = spawnSync(
    'sh',
    ['-c', `umask ${umask} && git clone --quiet --no-hardlinks "$0" "$1"`, root, target],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) fail(`git clone into ${parent} exited ${result.status}`);
  return target;
}

function mode(path) {
  return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
}

function runSuite(checkout) {
  const result = spawnSync('npm', ['test', '--', '--no-check', probe], {
    cwd: checkout,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const output = `${result.stdout}${result.stderr}`;
  return { status: result.status, output };
}

function check(label, parent, umask) {
  const checkout = clone(parent, umask);
  const before = {
    parent: mode(parent),
    checkout: mode(checkout),
    file: mode(join(checkout, 'package.json')),
  };
  process.stderr.write(`\n== ${label}: npm test in ${checkout} (modes ${JSON.stringify(before)})\n`);
  const { status, output } = runSuite(checkout);
  const after = {
    parent: mode(parent),
    checkout: mode(checkout),
    file: mode(join(checkout, 'package.json')),
  };
  if (status !== 0) fail(`${label}: npm test exited ${status}\n${output}`);
  if (!/as unprivileged uid \d+/.test(output)) fail(`${label}: the suite did not drop privileges\n${output}`);
  if (!/Tests\s+2 passed/.test(output)) fail(`${label}: the probe test file did not run\n${output}`);
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    fail(`${label}: permissions changed from ${JSON.stringify(before)} to ${JSON.stringify(after)}`);
  }
  process.stderr.write(`check-private-clone: ${label}: ok\n`);
}

const privateParent = mkdtempSync(join(tmpdir(), 'sealkit-clone-'));
const openParent = mkdtempSync(join(tmpdir(), 'sealkit-clone-open-'));
try {
  if (mode(privateParent) !== '0700') fail(`mktemp -d made ${mode(privateParent)}, expected 0700`);
  check('clone in a 0700 folder', privateParent, '022');
  spawnSync('chmod', ['0755', openParent]);
  mkdirSync(join(openParent, 'home'), { mode: 0o755 });
  check('clone made with umask 077', join(openParent, 'home'), '077');
} finally {
  rmSync(privateParent, { recursive: true, force: true });
  rmSync(openParent, { recursive: true, force: true });
}
process.stdout.write('check-private-clone: 2 passed, 0 failed\n');
