// The test files that need a service the suite starts itself (Ceph RGW,
// PostgreSQL, headless Chromium) or the package registry: `npm run test:unit`
// leaves them out. A file is one when it imports a service starter or a helper
// that does. See docs/development.md#test-tiers.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SERVICE_IMPORTS = [
  /services\/rgw/,
  /services\/postgres/,
  /helpers\/ledger-backends/,
  /helpers\/distributor-s3/,
  /playwright-core/,
  // Mounts only root can make (scripts/test.mjs prepares them before dropping privileges).
  /helpers\/mount-fixtures/,
];

function testFiles(dir, root) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(path, root));
    else if (entry.name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

export function serviceTestFiles(root) {
  const files = [...testFiles(join(root, 'src'), root), ...testFiles(join(root, 'test'), root)];
  return files
    .filter((file) => {
      if (file.startsWith('test/package/')) return true;
      if (file.startsWith('test/services/') && !file.endsWith('installed.test.ts')) return true;
      const text = readFileSync(join(root, file), 'utf8');
      return SERVICE_IMPORTS.some((pattern) => pattern.test(text));
    })
    .sort();
}
