// `npm test`: type-check, lint, build, then the whole suite as an unprivileged
// user. Started as root it prepares root-only fixtures, then re-executes the
// suite under a dedicated account; a test run as root would pass permission
// checks that prove nothing (root bypasses mode bits).
//
// A checkout the test account cannot read (a clone under /root, or in a
// `mktemp -d` folder: both 0700) is copied into the run's private folder,
// owned by that account, and the suite runs from the copy; the user's own
// folders keep their permissions. See docs/development.md#running-the-tests.
//
// `npm run test:unit` (`--unit`) leaves out the test files that need a
// service (Ceph RGW, PostgreSQL, Chromium, the package registry); see
// docs/development.md#test-tiers.
//
// Usage: npm test [-- [--no-check] [vitest args...]]
//        npm run test:unit [-- [--no-check] [vitest args...]]
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceTestFiles } from './service-tests.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);
const leading = new Set();
while (args[0] === '--no-check' || args[0] === '--unit') leading.add(args.shift());
const skipChecks = leading.has('--no-check');
const unitOnly = leading.has('--unit');
const vitestArgs = unitOnly
  ? [...serviceTestFiles(root).flatMap((file) => ['--exclude', file]), ...args]
  : args;

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function step(label, command, commandArgs) {
  process.stderr.write(`\n== ${label}\n`);
  const status = run(command, commandArgs);
  if (status !== 0) {
    process.stderr.write(`sealkit test: ${label} failed\n`);
    process.exit(status);
  }
}

if (!skipChecks) {
  step('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  step('lint', bin('biome'), ['check', '.']);
}
step('build', bin('tsc'), ['-p', 'tsconfig.build.json']);
step('bundle', process.execPath, [join(root, 'scripts', 'bundle.mjs')]);

const isRoot = process.geteuid?.() === 0;
// Mount points this run made (see prepareMounts), unmounted after the suite,
// also when the run is interrupted: the handlers run once the suite's
// process (which got the same signal) has ended.
const mountedPoints = [];
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.once(signal, () => {
    unmountAll();
    rmSync(workDir, { recursive: true, force: true });
    process.exit(code);
  });
}
const workDir = mkdtempSync(join(tmpdir(), 'sealkit-test-'));
const env = { ...process.env, SEALKIT_TEST_CACHE: workDir, TMPDIR: workDir };
let suiteRoot = root;
let command = join(suiteRoot, 'node_modules', '.bin', 'vitest');
let commandArgs = ['run', '--configLoader', 'runner', ...vitestArgs];

if (isRoot) {
  const user = ensureTestUser();
  const { uid, gid, home } = user;
  chownSync(workDir, uid, gid);
  chmodSync(workDir, 0o700);
  const unreachable = firstUnreachable(uid, gid);
  if (unreachable !== undefined) {
    suiteRoot = copyCheckout(workDir, unreachable, uid, gid);
    command = join(suiteRoot, 'node_modules', '.bin', 'vitest');
    // npm puts node_modules/.bin of the checkout and of every folder above it
    // on PATH; the test account cannot search those under a 0700 folder, and a
    // program looked up past one fails with EACCES instead of ENOENT. The
    // checkout's entry points at the copy; the others are left out.
    env.PATH = (env.PATH ?? '')
      .split(':')
      .map((entry) =>
        entry === root || entry.startsWith(`${root}/`) ? suiteRoot + entry.slice(root.length) : entry,
      )
      .filter((entry) => entry.startsWith(suiteRoot) || !entry.endsWith('/node_modules/.bin'))
      .join(':');
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chownSync(home, uid, gid);
  env.SEALKIT_ROOT_FIXTURES = prepareRootFixtures(workDir, uid, gid);
  const mounts = prepareMounts(workDir, uid, gid);
  if (mounts !== undefined) env.SEALKIT_MOUNT_FIXTURES = mounts;
  env.HOME = home;
  // Root's own tool shims (e.g. under /root) are unreachable for the test user.
  env.PATH = (env.PATH ?? '')
    .split(':')
    .filter((entry) => entry !== '' && !entry.startsWith('/root'))
    .join(':');
  env.USER = user.name;
  env.LOGNAME = user.name;
  commandArgs = [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', command, ...commandArgs];
  command = 'setpriv';
  process.stderr.write(`\n== suite (as unprivileged uid ${uid})\n`);
} else {
  process.stderr.write('\n== suite\n');
}
if (unitOnly) {
  process.stderr.write(
    `(unit tier: ${serviceTestFiles(root).length} test files that need a service are left out)\n`,
  );
}

const status = run(command, commandArgs, { env, cwd: suiteRoot });
unmountAll();
rmSync(workDir, { recursive: true, force: true });
process.exit(status);

// The first entry of the checkout (outside .git) that the test account cannot
// read, or a folder it cannot enter, or undefined when it reaches everything.
// `find -readable` asks the kernel with the account's own ids (access(2)), so
// ACLs and every parent folder's mode are taken into account.
function firstUnreachable(uid, gid) {
  const result = spawnSync(
    'setpriv',
    [
      `--reuid=${uid}`,
      `--regid=${gid}`,
      '--clear-groups',
      '--',
      'find',
      root,
      '-path',
      join(root, '.git'),
      '-prune',
      '-o',
      '(',
      '!',
      '-readable',
      '-o',
      '-type',
      'd',
      '!',
      '-executable',
      ')',
      '-print',
      '-quit',
    ],
    { encoding: 'utf8' },
  );
  if (result.error) throw result.error;
  const first = result.stdout.split('\n')[0];
  if (result.status === 0 && first === '') return undefined;
  return first === '' ? root : first;
}

// Copies the built checkout (sources, dist, node_modules; not .git) into the
// run's private folder and gives the copy to the test account. Symbolic links
// are copied as they are: node_modules/.bin holds relative links that must
// point inside the copy, not back into the unreachable original.
function copyCheckout(base, unreachable, uid, gid) {
  const copy = join(base, 'checkout');
  process.stderr.write(`\n== copy of the checkout (the test account cannot reach ${unreachable}): ${copy}\n`);
  try {
    cpSync(root, copy, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => source !== join(root, '.git'),
    });
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    process.stderr.write(
      `sealkit test: cannot copy the checkout into ${base} (${error.code ?? error.message}).\n` +
        'The unprivileged test account cannot read this checkout, so the suite runs from a copy\n' +
        'in the temporary folder. Free space there, point TMPDIR at a folder with about 1 GiB free,\n' +
        'or clone into a folder every user can enter (for example under /srv or /opt).\n',
    );
    process.exit(1);
  }
  if (run('chown', ['-R', '--no-dereference', `${uid}:${gid}`, copy]) !== 0) {
    process.stderr.write(`sealkit test: cannot give the copy ${copy} to the test account\n`);
    process.exit(1);
  }
  return copy;
}

function ensureTestUser() {
  const name = process.env.SEALKIT_TEST_USER ?? 'sealkit-test';
  const lookup = () => spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  let entry = lookup();
  if (entry.status !== 0) {
    run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      name,
    ]);
    entry = lookup();
  }
  if (entry.status !== 0) {
    process.stderr.write('sealkit test: cannot create the unprivileged test account\n');
    process.exit(1);
  }
  const [, , uid, gid] = entry.stdout.trim().split(':');
  return { name, uid: Number(uid), gid: Number(gid), home: join(tmpdir(), `sealkit-test-home-${uid}`) };
}

// Fixtures only root can make: files owned by another uid inside a directory
// the test user owns, so that the owner check (not the mode or parent check)
// is what refuses them.
function prepareRootFixtures(base, uid, gid) {
  const dir = join(base, 'root-fixtures');
  mkdirSync(dir, { mode: 0o700 });
  const foreign = join(dir, 'foreign-owned.json');
  writeFileSync(foreign, '{"owner":"root"}', { mode: 0o600 });
  chownSync(foreign, 0, 0);
  chownSync(dir, uid, gid);
  return dir;
}

// Filesystems only root can mount, for the tests of write failures at a
// destination (docs/development.md#tests-never-run-as-root): a 1 MiB tmpfs
// that a 2 MB file fills (ENOSPC), a read-only tmpfs (EROFS), and a bind
// mount of a folder (one filesystem reached through two mounts, so a rename
// between them fails with EXDEV). All owned by the test account, under the
// run's private folder, and unmounted after the suite. When mounting is not
// allowed (a container without CAP_SYS_ADMIN), the variable stays unset and
// the tests that need the mounts fail, naming what is missing.
function prepareMounts(base, uid, gid) {
  const dir = join(base, 'mounts');
  mkdirSync(dir, { mode: 0o755 });
  const point = (name) => {
    const path = join(dir, name);
    mkdirSync(path, { mode: 0o700 });
    chownSync(path, uid, gid);
    return path;
  };
  const mount = (args, target) => {
    const result = spawnSync('mount', [...args, target], { encoding: 'utf8' });
    if (result.status !== 0) {
      process.stderr.write(`sealkit test: cannot mount ${target} (${(result.stderr ?? '').trim()})\n`);
      return false;
    }
    mountedPoints.push(target);
    return true;
  };
  const owner = `uid=${uid},gid=${gid}`;
  const ok =
    mount(['-t', 'tmpfs', '-o', `size=1m,mode=0700,${owner}`, 'sealkit-test-full'], point('full')) &&
    mount(['-t', 'tmpfs', '-o', `size=1m,mode=0700,${owner}`, 'sealkit-test-full'], point('full-tmpdir')) &&
    mount(
      ['-t', 'tmpfs', '-o', `size=64k,mode=0700,${owner},ro`, 'sealkit-test-readonly'],
      point('readonly'),
    ) &&
    mount(['--bind', point('bind-source')], point('bind-view'));
  chownSync(dir, uid, gid);
  if (!ok) {
    unmountAll();
    return undefined;
  }
  return dir;
}

function unmountAll() {
  for (const target of mountedPoints.splice(0).reverse()) {
    if (spawnSync('umount', [target]).status !== 0) spawnSync('umount', ['--lazy', target]);
  }
}
