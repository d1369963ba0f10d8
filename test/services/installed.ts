import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * A service test whose program is not installed fails at once, naming the
 * Debian package and the command that installs it, instead of a spawn error
 * deep in a start-up routine (docs/development.md#test-tiers).
 */
export interface Requirement {
  /** A program looked up on PATH, or an absolute path. */
  readonly program: string;
  /** The Debian package that installs it. */
  readonly debianPackage: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found(program: string): boolean {
  if (program.includes('/')) return isExecutable(program);
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && isExecutable(join(dir, program)));
}

export function missingRequirements(requirements: readonly Requirement[]): readonly Requirement[] {
  return requirements.filter((requirement) => !found(requirement.program));
}

export function requireInstalled(service: string, requirements: readonly Requirement[]): void {
  const missing = missingRequirements(requirements);
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((requirement) => requirement.debianPackage))].join(' ');
  throw new Error(
    `${service} is not installed (missing: ${missing.map((r) => r.program).join(', ')}). ` +
      `Install it with: apt-get install ${packages} — or run 'bash .ci/run', which installs every package the suite needs. ` +
      `'npm run test:unit' runs the tests that need no service.`,
  );
}

export const RGW_REQUIREMENTS: readonly Requirement[] = [
  { program: 'radosgw', debianPackage: 'radosgw' },
  { program: 'ceph-mon', debianPackage: 'ceph-mon' },
  { program: 'ceph-osd', debianPackage: 'ceph-osd' },
  { program: 'ceph-authtool', debianPackage: 'ceph-common' },
  { program: 'monmaptool', debianPackage: 'ceph-base' },
];

export const CHROMIUM_REQUIREMENTS: readonly Requirement[] = [
  { program: '/usr/bin/chromium', debianPackage: 'chromium' },
];

export const POSTGRES_REQUIREMENTS: readonly Requirement[] = [
  { program: '/usr/lib/postgresql/15/bin/initdb', debianPackage: 'postgresql' },
];
