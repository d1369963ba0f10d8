// Tour of the scoped execution owner codec: verify a valid owner document
// with its originals, print its three subjects R, E and A, then watch a
// one-byte change be refused by the expected digest.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const title = 'verify an execution-ownership document';

export async function run(ctx) {
  // The example owner of the PostgreSQL → MSSQL transfer cell and its originals,
  // built the way a producer would (the same builder the tests use).
  const fixtures = join(ctx.root, 'dist', 'src', 'owner', 'fixtures');
  const { toCanonical } = await import(pathToFileURL(join(fixtures, 'build.js')).href);
  const { buildCell } = await import(pathToFileURL(join(fixtures, 'cells.js')).href);
  const built = buildCell('postgres_mssql_full_refresh_v1');
  const dir = join(ctx.workDir, 'owner');
  mkdirSync(dir);
  const write = (name, data) => {
    const path = join(dir, name);
    writeFileSync(path, toCanonical(data).bytes);
    return path;
  };
  const ownerFile = write('owner.json', built.owner);
  const expected = toCanonical(built.owner).sha256;
  const originals = [
    '--qualification-owner',
    write('qualification-owner.json', built.qualificationOwner),
    '--qualification-grant',
    write('qualification-grant.json', built.qualificationGrant),
    '--execution-grant',
    write('execution-grant.json', built.executionGrant),
  ];
  const attemptFile = write('attempt.json', built.attempts.orders);

  ctx.cd(dir);
  ctx.say('Verify the owner document against its independently known SHA-256, and require its originals:');
  const verified = ctx.sealkit(['owner', 'verify', ownerFile, '--expected-sha256', expected, ...originals], {
    lines: 2,
  });
  if (verified.status !== 0) throw new Error('owner verify failed');

  ctx.say('The three subjects: R (the embedded request), E (the whole owner), A (an attempt bound to R):');
  const subjects = ctx.sealkit(
    ['owner', 'subjects', ownerFile, '--expected-sha256', expected, '--attempt', attemptFile],
    { lines: 2 },
  );
  if (subjects.status !== 0) throw new Error('owner subjects failed');

  ctx.say('Change one byte (the target table "Orders" becomes "Ordera") and verify again:');
  const bytes = Buffer.from(toCanonical(built.owner).bytes);
  const at = bytes.indexOf('"Orders"') + 6;
  bytes[at] = 'a'.charCodeAt(0);
  const changed = join(dir, 'owner-changed.json');
  writeFileSync(changed, bytes);
  const byDigest = ctx.sealkit(['owner', 'verify', changed, '--expected-sha256', expected]);
  if (byDigest.status !== 2) throw new Error('the changed document was not refused');
}
