// Installs the pinned dependencies when a fresh clone has none, so that
// `npm run demo` and `npm test` are the only two commands a user needs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');

function lockIsInstalled() {
  if (!existsSync(marker)) return false;
  // npm rewrites node_modules/.package-lock.json on every install; a lockfile
  // newer in content (a pulled change) means dependencies must be refreshed.
  const wanted = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages ?? {};
  const have = JSON.parse(readFileSync(marker, 'utf8')).packages ?? {};
  return Object.entries(wanted).every(
    ([path, meta]) => path === '' || meta.optional || have[path]?.version === meta.version,
  );
}

if (!lockIsInstalled()) {
  process.stderr.write('sealkit: installing pinned dependencies (npm ci)...\n');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('sealkit: npm ci failed\n');
    process.exit(result.status ?? 1);
  }
}
