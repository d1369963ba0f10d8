// Permission, seal and publication behaviour differs for root (it bypasses
// mode bits), so a suite run as root would pass tests that prove nothing.
// `npm test` drops privileges itself; anything else that starts vitest as root
// fails here, in every test file, instead of skipping.
import { beforeAll } from 'vitest';

beforeAll(() => {
  if (process.geteuid?.() === 0) {
    throw new Error('sealkit tests must not run as root: use `npm test`, which drops privileges');
  }
});
