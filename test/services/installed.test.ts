import { describe, expect, it } from 'vitest';
import { missingRequirements, requireInstalled } from './installed.js';

describe('a service that is not installed', () => {
  it('fails naming the missing program, its Debian package and the command that installs it', () => {
    expect(() =>
      requireInstalled('Ceph RGW', [
        { program: 'sealkit-no-such-program-zq', debianPackage: 'radosgw' },
        { program: '/no/such/dir/ceph-mon', debianPackage: 'ceph-mon' },
      ]),
    ).toThrow(
      "Ceph RGW is not installed (missing: sealkit-no-such-program-zq, /no/such/dir/ceph-mon). Install it with: apt-get install radosgw ceph-mon — or run 'bash .ci/run'",
    );
  });

  it('passes when every program is there', () => {
    expect(missingRequirements([{ program: process.execPath, debianPackage: 'nodejs' }])).toEqual([]);
    expect(() => requireInstalled('node', [{ program: 'sh', debianPackage: 'dash' }])).not.toThrow();
  });
});
