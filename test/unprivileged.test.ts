import { describe, expect, it } from 'vitest';

describe('the suite', () => {
  it('runs as an unprivileged user (root bypasses the permission checks under test)', () => {
    expect(process.geteuid?.()).not.toBe(0);
  });

  it('keeps tool caches and temporary files in a private writable location', () => {
    expect(process.env.SEALKIT_TEST_CACHE).toBeTruthy();
  });
});
