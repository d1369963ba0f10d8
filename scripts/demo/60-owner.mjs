// Tour of the scoped execution owner codec: verify a valid owner document
// with its originals, print its three subjects R, E and A, then watch a
// one-byte change be refused by the expected digest. The codec's refusals
// name no place in the document (docs/owner.md#reasons): the code says which
// check failed.
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
  ctx.say(
    "owner.json and its originals (canonical JSON) come from a producer, who announces owner.json's SHA-256 separately:",
  );
  ctx.show(ownerFile, 1);
  ctx.variable('EXPECTED', `sha256:${expected}`);
  const verified = ctx.sealkit(
    ['owner', 'verify', ownerFile, '--expected-sha256', `sha256:${expected}`, ...originals],
    {
      pick: (line) => line.startsWith('owner document: ') || line.startsWith('originals: '),
    },
  );
  if (verified.status !== 0) throw new Error('owner verify failed');

  ctx.say('The three subjects: R (the embedded request), E (the whole owner), A (an attempt bound to R):');
  const subjects = ctx.sealkit(
    ['owner', 'subjects', ownerFile, '--expected-sha256', `sha256:${expected}`, '--attempt', attemptFile],
    { lines: 3 },
  );
  if (subjects.status !== 0) throw new Error('owner subjects failed');

  ctx.say(
    'Change one byte ("Orders" becomes "Ordera"): refused by the expected SHA-256 (the codec names no place in a document).',
  );
  ctx.shell(`sed 's/"Orders"/"Ordera"/' owner.json > owner-changed.json`);
  const byDigest = ctx.sealkit([
    'owner',
    'verify',
    'owner-changed.json',
    '--expected-sha256',
    `sha256:${expected}`,
  ]);
  if (byDigest.status !== 2) throw new Error('the changed document was not refused');

  ctx.say('A mistyped original is named by its role, never by its path or contents:');
  const typo = originals.map((arg) => (arg.endsWith('execution-grant.json') ? 'execution-grnt.json' : arg));
  const missing = ctx.sealkit([
    'owner',
    'verify',
    'owner.json',
    '--expected-sha256',
    `sha256:${expected}`,
    ...typo,
  ]);
  if (missing.status !== 2 || !missing.stderr.includes('= in: execution_grant')) {
    throw new Error('a missing original did not name its role');
  }
}
