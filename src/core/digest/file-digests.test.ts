import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { digestFileOnThread } from './file-digests.js';

const work = mkdtempSync(join(tmpdir(), 'file-digests-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A file of `bytes` varied bytes, and what its digests must be. */
function fileOf(name: string, bytes: number) {
  const content = Buffer.alloc(bytes);
  for (let at = 0; at < bytes; at++) content[at] = (at * 7 + (at >> 11)) & 0xff;
  const path = join(work, name);
  writeFileSync(path, content);
  return {
    path,
    expected: {
      sha256: createHash('sha256').update(content).digest('hex'),
      md5Hex: createHash('md5').update(content).digest('hex'),
      bytes,
    },
  };
}

const opener = (path: string) => () => {
  const fd = openSync(path, 'r');
  return { fd, close: () => closeSync(fd) };
};

describe('digestFileOnThread', () => {
  it('gives the SHA-256 and MD5 of every byte, for files of one chunk, several chunks and none', async () => {
    const files = [fileOf('empty', 0), fileOf('small', 1000), fileOf('chunks', 3 * (1 << 20) + 17)];
    const results = await Promise.all(
      files.map((file) => digestFileOnThread({ open: opener(file.path), maxBytes: 1 << 30 })),
    );
    expect(results).toEqual(files.map((file) => file.expected));
  });

  it('stops reading past maxBytes, so a file that grew shows more bytes than planned', async () => {
    const file = fileOf('grown', 2 * (1 << 20) + 5);
    const result = await digestFileOnThread({ open: opener(file.path), maxBytes: 1 << 20 });
    expect(result?.bytes).toBeGreaterThan(1 << 20);
    expect(result?.sha256).not.toBe(file.expected.sha256);
  });

  it('answers undefined for a file that cannot be opened, and goes on with the next one', async () => {
    const file = fileOf('after', 4096);
    const [missing, after] = await Promise.all([
      digestFileOnThread({ open: opener(join(work, 'absent')), maxBytes: 1 << 20 }),
      digestFileOnThread({ open: opener(file.path), maxBytes: 1 << 20 }),
    ]);
    expect(missing).toBeUndefined();
    expect(after).toEqual(file.expected);
  });

  it('answers undefined for a descriptor that cannot be read (a directory)', async () => {
    const result = await digestFileOnThread({
      open: () => {
        const fd = openSync(work, 'r');
        return { fd, close: () => closeSync(fd) };
      },
      maxBytes: 1 << 20,
    });
    expect(result).toBeUndefined();
  });

  it('opens a file only when the thread takes it and closes it once read: one descriptor at a time', async () => {
    const files = Array.from({ length: 6 }, (_, index) => fileOf(`queued-${index}`, 1 << 20));
    let open = 0;
    let most = 0;
    const results = await Promise.all(
      files.map((file) =>
        digestFileOnThread({
          open: () => {
            const opened = opener(file.path)();
            open += 1;
            most = Math.max(most, open);
            return {
              fd: opened.fd,
              close: () => {
                open -= 1;
                opened.close();
              },
            };
          },
          maxBytes: 1 << 21,
        }),
      ),
    );
    expect(results).toEqual(files.map((file) => file.expected));
    expect(most).toBe(1);
    expect(open).toBe(0);
  });
});
