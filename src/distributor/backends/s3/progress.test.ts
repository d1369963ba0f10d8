// Progress of `sealkit distribute run` at an S3 destination, on a real
// terminal (`script` gives the CLI a pty): inspection had no progress at
// all (a no-op rerun of 2,000 bundles sat silent for 17 s), and apply moved
// in steps of 256, the local group commit's batch, although each S3 bundle
// commits on its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import { s3ConfigYaml, useRgwFixture, writeBundle } from '../../../../test/helpers/distributor-s3.js';

const ctx = useRgwFixture({ work: 's3-progress-', bucket: 'progress' });

const BUNDLES = 12;

/** The progress lines a terminal showed, in order, each as drawn. */
function progressLines(shown: string): string[] {
  return shown
    .split(/\r\n|\r/)
    .map((line) => line.replace('\u001b[2K', ''))
    .filter((line) => line.startsWith('sealkit distribute: '))
    .map((line) => line.slice('sealkit distribute: '.length));
}

function inTerminal(dir: string, args: readonly string[]) {
  const command = [process.execPath, join(REPO_ROOT, 'bin', 'sealkit.js'), 'distribute', 'run', ...args]
    .map((word) => `'${word}'`)
    .join(' ');
  const run = spawnSync('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...ctx.rgw.awsEnv, NO_COLOR: '1' },
  });
  return { status: run.status, lines: progressLines(run.stdout) };
}

describe('progress of a run at an S3 destination', () => {
  it('regression: inspection counts bundle paths, and apply counts each bundle as it is committed', () => {
    const dir = mkdtempSync(join(ctx.work, 'bundles-'));
    for (let n = 1; n <= BUNDLES; n += 1)
      writeBundle(join(dir, 'out'), `day-${String(n).padStart(2, '0')}`, {
        id: `day-${n}`,
        created: '2026-05-30T11:10:00Z',
        files: { 'report.md': `# Day ${n}\n` },
      });
    writeFileSync(
      join(dir, 'sealkit.distributor.yaml'),
      s3ConfigYaml(ctx.rgw, join(dir, 'out'), { bucket: ctx.bucket, prefix: 'days' }),
    );
    const counts = (lines: readonly string[], phase: string) =>
      lines.flatMap((line) => {
        const found = new RegExp(`^${phase} (\\d+)/${BUNDLES}, destination bucket$`).exec(line);
        return found === null ? [] : [Number(found[1])];
      });
    const every = Array.from({ length: BUNDLES + 1 }, (_, n) => n);

    const first = inTerminal(dir, ['--transfers', '4']);
    expect(first.status).toBe(0);
    expect(counts(first.lines, 'inspect')).toEqual(every);
    // Bundles finish in any order; each one is counted once, as it finishes.
    expect(counts(first.lines, 'apply')).toEqual(every);
    expect(first.lines.at(-1)).toBe(`apply ${BUNDLES}/${BUNDLES}`);

    // A rerun writes nothing: inspection is all the destination sees of it.
    const rerun = inTerminal(dir, []);
    expect(rerun.status).toBe(0);
    expect(counts(rerun.lines, 'inspect')).toEqual(every);
    expect(rerun.lines.at(-1)).toBe('apply 0/0');
  });
});
