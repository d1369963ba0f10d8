// One distributor run (or the reference hashing) in a process of its own, so
// its peak RSS and CPU time are its own:
//   node dist/bench/distributor-child.js run CONFIG   → {"maxRssKiB","cpuMs","counts"}
//     `sealkit distribute run --config CONFIG --json` through the CLI bundle, as bin/sealkit.js runs it
//   node dist/bench/distributor-child.js run-checksum CONFIG   → the same with --checksum
//     (nothing else of sealkit is loaded: what a user's process loads, it loads)
//   node dist/bench/distributor-child.js hash ROOT    → {"maxRssKiB","cpuMs","files"}
//   node dist/bench/distributor-child.js reads ROOT DEST → {"maxRssKiB","cpuMs","files"}
//   node dist/bench/distributor-child.js held-reads ROOT DEST → {"maxRssKiB","cpuMs","files"}
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Dir } from '../src/core/fs/index.js';
import { peakRssKiB } from './peak-rss.js';

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

/** Reads one regular file below a held directory: no-follow open, fstat (type and size), one read. */
function readHeld(dir: Dir, name: string): Uint8Array {
  const file = dir.openFile(name);
  try {
    const stat = file.stat();
    if (stat.type !== 'file') throw new Error('not a regular file');
    return file.readExpected(Number(stat.size));
  } finally {
    file.close();
  }
}

/**
 * The same reads as `readsOfRerun`, made the way a rerun must make them to
 * refuse symlinks and swapped entries: every directory opened no-follow
 * relative to its held parent and listed, every file opened no-follow and
 * fstatted; each destination state opened below its held bundle directory.
 * Still nothing parsed, checked against a manifest, or listed at the
 * destination. The floor under any rerun that keeps those guarantees.
 */
function heldReadsOfRerun(source: Dir, dest: Dir): number {
  let files = 0;
  for (const entry of source.list()) {
    if (entry.type === 'directory') {
      const child = source.openDir(entry.name);
      try {
        const entries = child.list();
        if (entries.some((inner) => inner.name === 'manifest.json')) {
          for (const inner of entries) {
            if (inner.type !== 'file') continue;
            createHash('sha256').update(readHeld(child, inner.name)).digest('hex');
            files += 1;
          }
          const destBundle = dest.openDir(entry.name);
          try {
            readHeld(destBundle, '.distributor.json');
            files += 1;
          } finally {
            destBundle.close();
          }
        } else {
          const destChild = dest.openDir(entry.name);
          try {
            files += heldReadsOfRerun(child, destChild);
          } finally {
            destChild.close();
          }
        }
      } finally {
        child.close();
      }
    }
  }
  return files;
}

const figures = (): { maxRssKiB: number; cpuMs: number } => {
  const usage = process.resourceUsage();
  return { maxRssKiB: peakRssKiB(), cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
};

/** The CLI bundle's `distribute run --json`, its report parsed; stderr is the child's own. */
async function runCli(
  configPath: string,
  flags: readonly string[] = [],
): Promise<{ readonly status: string; readonly counts: unknown }> {
  // The bundle bin/sealkit.js loads (scripts/bundle.mjs); its main is the one of src/cli/main.ts.
  const bundle = new URL('../bundle/sealkit.js', import.meta.url).href;
  const { main } = (await import(bundle)) as typeof import('../src/cli/main.js');
  const printed: Buffer[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      printed.push(chunk);
      done();
    },
  });
  const exit = await main(['distribute', 'run', '--config', configPath, ...flags, '--json'], {
    stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  });
  const report = JSON.parse(Buffer.concat(printed).toString('utf8')) as {
    readonly status: string;
    readonly counts: unknown;
  };
  return exit === 0 ? report : { ...report, status: `exit ${exit}` };
}

if (mode === 'held-reads') {
  const { Dir } = await import('../src/core/fs/index.js');
  const source = Dir.open(target);
  const dest = Dir.open(destination);
  const files = heldReadsOfRerun(source, dest);
  source.close();
  dest.close();
  process.stdout.write(`${JSON.stringify({ ...figures(), files })}\n`);
} else if (mode === 'reads') {
  const files = readsOfRerun(target, destination, '');
  process.stdout.write(`${JSON.stringify({ ...figures(), files })}\n`);
} else if (mode === 'hash') {
  const files = hashTree(target);
  process.stdout.write(`${JSON.stringify({ ...figures(), files })}\n`);
} else {
  const report = await runCli(target, mode === 'run-checksum' ? ['--checksum'] : []);
  if (report.status !== 'ok') {
    process.stderr.write(`distributor benchmark run was refused (${report.status})\n`);
    process.exitCode = 1;
  }
  process.stdout.write(`${JSON.stringify({ ...figures(), counts: report.counts })}\n`);
}
