// Regenerates the data directory a new embedded contract ledger starts from
// (docs/contracts.md#embedded-ledger): run after upgrading
// @electric-sql/pglite, after `npm run build`, then commit the file.
//   node scripts/embedded-ledger-template.mjs
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import {
  EMBEDDED_TEMPLATE_INITDB,
  EMBEDDED_TEMPLATE_PATH,
  packDataDir,
} from '../dist/src/contracts/publication/embedded-template.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'sealkit-ledger-template-'));
try {
  const dataDir = join(work, 'pgdata');
  const db = await PGlite.create({ dataDir, initDbStartParams: [...EMBEDDED_TEMPLATE_INITDB] });
  // The ledger never creates a database, so the two template databases are
  // dead weight: 2 of the 4.4 MB the tarball would otherwise be.
  await db.exec("UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')");
  await db.exec('DROP DATABASE template0');
  await db.exec('DROP DATABASE template1');
  await db.exec('CHECKPOINT');
  await db.close();
  const bytes = packDataDir(dataDir);
  const target = join(root, ...EMBEDDED_TEMPLATE_PATH);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bytes);
  const digest = createHash('sha256').update(bytes).digest('hex');
  process.stdout.write(`${target}: ${bytes.length} bytes, sha256 ${digest}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
