// One distributor run against S3 in a process of its own, for the race and
// SIGKILL tests. It uses the built library (dist/, built by `npm test`), the
// run's test hook `beforeStep` and the S3 backend's lease clock; nothing here
// exists in production code paths.
//
// argv[2]: JSON {
//   config, now,              // the DistributorConfig and the published_at instant
//   killAtStep?,              // SIGKILL itself just before the n-th S3 write or delete (1-based)
//   gate?,                    // before the first S3 write: print "ready", wait until this file exists
//   clockOffsetMs?            // run the lease clock ahead ("a later run")
// }
// stderr gets "ready\n" at the gate and "writing\n" at the first write; stdout
// gets one JSON line {steps, outcomes} at the end.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const { distributeRun } = await import(join(root, 'dist/src/distributor/run/run.js'));
const { createS3Backend } = await import(join(root, 'dist/src/distributor/backends/s3/index.js'));

const options = JSON.parse(process.argv[2] ?? '{}');
const offset = options.clockOffsetMs ?? 0;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let steps = 0;

const report = await distributeRun({
  config: options.config,
  now: () => new Date(options.now),
  s3Backend: (config, context) =>
    createS3Backend(config, context, { clock: { now: () => new Date(Date.now() + offset) } }),
  beforeStep: (step) => {
    if (step.kind !== 'put' && step.kind !== 'delete') return;
    steps += 1;
    if (steps === 1) {
      if (options.gate !== undefined) {
        process.stderr.write('ready\n');
        // beforeStep is synchronous: wait for the gate with a blocking sleep.
        while (!existsSync(options.gate)) Atomics.wait(sleeper, 0, 0, 2);
      }
      process.stderr.write('writing\n');
    }
    if (options.killAtStep === steps) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write(`${JSON.stringify({ steps, outcomes: report.outcomes })}\n`);
