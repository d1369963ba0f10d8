import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/helpers/cli.js';
import { endOnBrokenPipe, OUTPUT_FAILED } from './broken-pipe.js';

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * `sealkit ARGS | READER` in bash: sealkit's own exit status (PIPESTATUS),
 * its stderr, and what the reader printed.
 */
function piped(args: readonly string[], reader: string, stdin?: string) {
  const folder = mkdtempSync(join(tmpdir(), 'sealkit-pipe-'));
  folders.push(folder);
  const words = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(' ');
  const input = stdin === undefined ? '< /dev/null' : `< '${join(folder, 'in')}'`;
  if (stdin !== undefined) writeFileSync(join(folder, 'in'), stdin);
  const script = `${words} ${input} 2> '${join(folder, 'err')}' | ${reader}; echo "status=\${PIPESTATUS[0]}" >&2`;
  const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  const status = /status=(\d+)/.exec(run.stderr)?.[1];
  const stderr = spawnSync('cat', [join(folder, 'err')], { encoding: 'utf8' }).stdout;
  return { status: status === undefined ? undefined : Number(status), stderr, read: run.stdout };
}

describe('a reader that goes away', () => {
  it('ends sealkit with 141 and no stack trace when the reader is gone before the first write', () => {
    // `true` exits long before node has started, so the first write meets a closed pipe.
    const run = piped(['--help'], 'true');
    expect(run.status).toBe(141);
    expect(run.stderr).toBe('');
  });

  it('ends sealkit with 141 and no stack trace when the reader stops part-way', () => {
    // 2 MB of output: far more than a pipe holds, so writes are still due when head exits.
    const document = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ b: i, a: `row ${i}` })));
    const run = piped(['json', 'canonicalize', '-'], 'head -c 10', document);
    expect(run.read).toBe('[{"a":"row');
    expect(run.status).toBe(141);
    expect(run.stderr).toBe('');
  });

  it('still prints everything, exit 0, to a reader that reads it all', () => {
    const run = piped(['--help'], 'wc -c');
    expect(run.status).toBe(0);
    expect(Number(run.read.trim())).toBeGreaterThan(500);
  });
});

describe('endOnBrokenPipe', () => {
  function streams() {
    const written: string[] = [];
    const stdout = new EventEmitter() as unknown as NodeJS.WritableStream;
    const stderr = Object.assign(new EventEmitter(), {
      write: (text: string) => {
        written.push(text);
        return true;
      },
    }) as unknown as NodeJS.WritableStream;
    return { stdout, stderr, written };
  }
  const failure = (code: string) => Object.assign(new Error(`write ${code}`), { code });

  it('turns any other failure of stdout into one line on stderr and exit 70', () => {
    const { stdout, stderr, written } = streams();
    const exits: number[] = [];
    endOnBrokenPipe([stdout, stderr], (code) => exits.push(code), stderr);
    stdout.emit('error', failure('EIO'));
    expect(exits).toEqual([70]);
    expect(written).toEqual([`${OUTPUT_FAILED} (EIO)\n`]);
  });

  it('writes nothing to a failed stderr, and exits 141 for EPIPE on either stream', () => {
    const { stdout, stderr, written } = streams();
    const exits: number[] = [];
    endOnBrokenPipe([stdout, stderr], (code) => exits.push(code), stderr);
    stderr.emit('error', failure('ENOSPC'));
    stderr.emit('error', failure('EPIPE'));
    stdout.emit('error', failure('EPIPE'));
    expect(exits).toEqual([70, 141, 141]);
    expect(written).toEqual([]);
  });
});
