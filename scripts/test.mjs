// `npm test`: type-check, lint, build, then the whole suite as an unprivileged
// user. Started as root it prepares root-only fixtures, then re-executes the
// suite under a dedicated account; a test run as root would pass permission
// checks that prove nothing (root bypasses mode bits).
//
// Usage: npm test [-- [--no-check] [vitest args...]]
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);
const skipChecks = args[0] === '--no-check';
const vitestArgs = skipChecks ? args.slice(1) : args;

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

const isRoot = process.geteuid?.() === 0;
const workDir = mkdtempSync(join(tmpdir(), 'sealkit-test-'));
const env = { ...process.env, SEALKIT_TEST_CACHE: workDir, TMPDIR: workDir };
let command = bin('vitest');
let commandArgs = ['run', '--configLoader', 'runner', ...vitestArgs];

if (isRoot) {
  const user = ensureTestUser();
  const { uid, gid, home } = user;
  chownSync(workDir, uid, gid);
  chmodSync(workDir, 0o700);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chownSync(home, uid, gid);
  env.SEALKIT_ROOT_FIXTURES = prepareRootFixtures(workDir, uid, gid);
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

const status = run(command, commandArgs, { env });
rmSync(workDir, { recursive: true, force: true });
process.exit(status);

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
