// One distributor run in a process of its own, so its peak RSS is its own:
// `node dist/bench/distributor-child.js CONFIG` prints {"maxRssKiB", "counts"}.
import { distributeRun } from '../src/distributor/index.js';

const report = await distributeRun({ configPath: process.argv[2] ?? '' });
if (report.status !== 'ok') {
  process.stderr.write('distributor benchmark run was refused\n');
  process.exitCode = 1;
}
process.stdout.write(
  `${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, counts: report.counts })}\n`,
);
