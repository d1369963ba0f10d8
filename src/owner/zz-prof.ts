import { toCanonical } from './fixtures/build.js';
import { buildExactSize, MAXIMAL, scaledSpec } from './fixtures/maximal.js';
import { ScopedExecutionOwner } from './index.js';

const full = toCanonical(buildExactSize(scaledSpec(MAXIMAL), 8 * 1048576).owner);
for (let i = 0; i < 3; i++) ScopedExecutionOwner.fromBytes(full.bytes, { expectedSha256: full.sha256 });
const c0 = process.cpuUsage();
const t = performance.now();
for (let i = 0; i < 10; i++) ScopedExecutionOwner.fromBytes(full.bytes, { expectedSha256: full.sha256 });
const c = process.cpuUsage(c0);
console.log(
  'avg wall',
  ((performance.now() - t) / 10).toFixed(1),
  'cpu',
  ((c.user + c.system) / 1000 / 10).toFixed(1),
);
