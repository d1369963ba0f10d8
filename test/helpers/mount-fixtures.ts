import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Filesystems `npm test` mounts as root before it drops privileges
 * (scripts/test.mjs, docs/development.md#tests-never-run-as-root), each owned
 * by the test account:
 *
 * - `full`, `fullTmpdir`: two 1 MiB tmpfs, empty: a 2 MB file fills either
 *   (ENOSPC). Two, because the two test files that fill one may run side by
 *   side, and each checks that nothing is left on its own;
 * - `readonly`: a read-only tmpfs (EROFS on any write);
 * - `bindSource`, `bindView`: one folder and a bind mount of it, the same
 *   directory (device and inode) reached through two mounts.
 *
 * A test that needs them fails (never skips) when they are missing: a run
 * that did not start as root, or a machine where mounting is not allowed.
 */
export interface MountFixtures {
  readonly full: string;
  readonly fullTmpdir: string;
  readonly readonly: string;
  readonly bindSource: string;
  readonly bindView: string;
}

export function mountFixtures(): MountFixtures {
  const base = process.env.SEALKIT_MOUNT_FIXTURES;
  if (base === undefined || base === '') {
    throw new Error(
      'SEALKIT_MOUNT_FIXTURES is not set: these tests need the small tmpfs, read-only tmpfs and bind mount ' +
        "that 'npm test' prepares when it is started as root (CI does, through .ci/run). Run 'sudo npm test', " +
        "or 'npm run test:unit', which leaves these tests out.",
    );
  }
  const fixtures = {
    full: join(base, 'full'),
    fullTmpdir: join(base, 'full-tmpdir'),
    readonly: join(base, 'readonly'),
    bindSource: join(base, 'bind-source'),
    bindView: join(base, 'bind-view'),
  };
  const mounts = mountPoints();
  for (const [path, type] of [
    [fixtures.full, 'tmpfs'],
    [fixtures.fullTmpdir, 'tmpfs'],
    [fixtures.readonly, 'tmpfs'],
    [fixtures.bindView, undefined],
  ] as const) {
    const found = mounts.get(path);
    if (found === undefined || (type !== undefined && found !== type))
      throw new Error(`${path} is not a mounted ${type ?? 'bind mount'}: SEALKIT_MOUNT_FIXTURES is stale`);
  }
  return fixtures;
}

/** Mount point → filesystem type, from /proc/self/mountinfo (octal escapes decoded). */
function mountPoints(): Map<string, string> {
  const points = new Map<string, string>();
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-');
    const point = fields[4];
    const type = separator === -1 ? undefined : fields[separator + 1];
    if (point === undefined || type === undefined) continue;
    points.set(
      point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))),
      type,
    );
  }
  return points;
}
