// One distributor run (or the reference hashing) in a process of its own, so
// its peak RSS and CPU time are its own:
//   node dist/bench/distributor-child.js run CONFIG   → {"maxRssKiB","cpuMs","counts"}
//   node dist/bench/distributor-child.js hash ROOT    → {"maxRssKiB","cpuMs","files"}
//   node dist/bench/distributor-child.js reads ROOT DEST → {"maxRssKiB","cpuMs","files"}
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { distributeRun } from '../src/distributor/index.js';

const [mode, target = '', destination = ''] = process.argv.slice(2);

/** The least any tool verifying the sources must do: read and SHA-256 every file once. */
function hashTree(root: string): number {
  let files = 0;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) files += hashTree(path);
    else if (entry.isFile()) {
      createHash('sha256').update(readFileSync(path)).digest('hex');
      files += 1;
    }
  }
  return files;
}

/**
 * The reads a no-op rerun cannot skip, and nothing else: every source file
 * hashed once (manifests included) and every bundle's destination state read
 * — by path, nothing parsed or checked. The floor under any rerun.
 */
function readsOfRerun(root: string, dest: string, relative: string): number {
  let files = 0;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    const below = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) files += readsOfRerun(path, dest, below);
    else if (entry.isFile()) {
      createHash('sha256').update(readFileSync(path)).digest('hex');
      files += 1;
      if (entry.name === 'manifest.json') {
        readFileSync(join(dest, relative, '.distributor.json'));
        files += 1;
      }
    }
  }
  return files;
}

const figures = (): { maxRssKiB: number; cpuMs: number } => {
  const usage = process.resourceUsage();
  return { maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
};

if (mode === 'reads') {
  const files = readsOfRerun(target, destination, '');
  process.stdout.write(`${JSON.stringify({ ...figures(), files })}\n`);
} else if (mode === 'hash') {
  const files = hashTree(target);
  process.stdout.write(`${JSON.stringify({ ...figures(), files })}\n`);
} else {
  const report = await distributeRun({ configPath: target });
  if (report.status !== 'ok') {
    process.stderr.write('distributor benchmark run was refused\n');
    process.exitCode = 1;
  }
  process.stdout.write(`${JSON.stringify({ ...figures(), counts: report.counts })}\n`);
}
