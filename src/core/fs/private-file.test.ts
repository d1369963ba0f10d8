import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonFloat } from '../json/index.js';
import { Refusal } from '../refusal/index.js';
import { DEFAULT_PRIVATE_MAX_BYTES, readPrivateFile, readPrivateJson } from './private-file.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-private-')));
afterAll(() => {
  spawnSync('chmod', ['-R', 'u+rwx', base]);
  rmSync(base, { recursive: true, force: true });
});

let counter = 0;
/** A fresh owner-only directory holding `file.json` (0600) with the given content. */
function privateFile(content: string | Uint8Array = '{"run_id":"synthetic"}'): { dir: string; file: string } {
  counter += 1;
  const dir = join(base, `case-${counter}`);
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'file.json');
  writeFileSync(file, content, { mode: 0o600 });
  return { dir, file };
}

function refusalCode(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error: unknown) {
    if (!(error instanceof Refusal)) return 'not-a-refusal';
    expect(error.message).not.toContain(base);
    return error.code;
  }
  return undefined;
}

describe('readPrivateJson: accepted', () => {
  it('reads a valid private file', () => {
    const { file } = privateFile(
      '{"run_id":"synthetic","rows":12,"ratio":1.5,"tags":["a"],"nested":{"x":null}}',
    );
    const value = readPrivateJson(file);
    expect(Object.keys(value)).toEqual(['run_id', 'rows', 'ratio', 'tags', 'nested']);
    expect(value.run_id).toBe('synthetic');
    expect(value.rows).toBe(12);
    expect(value.ratio).toBeInstanceOf(JsonFloat);
    expect(value.tags).toEqual(['a']);
    expect(Object.entries(value.nested as object)).toEqual([['x', null]]);
  });

  it('accepts a read-only (0400) file and a relative path', () => {
    const { dir, file } = privateFile('{"a":1}');
    chmodSync(file, 0o400);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(readPrivateJson('file.json').a).toBe(1);
      expect(readPrivateJson('./file.json').a).toBe(1);
    } finally {
      process.chdir(cwd);
    }
  });

  it('accepts an owner-only parent the user may search but not list (0300)', () => {
    const { dir, file } = privateFile('{"a":2}');
    chmodSync(dir, 0o300);
    try {
      expect(readPrivateJson(file).a).toBe(2);
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe('readPrivateJson: symlinks at every component', () => {
  it('refuses a symlink as the parent directory', () => {
    const { dir } = privateFile();
    const link = join(base, `parent-link-${counter}`);
    symlinkSync(dir, link);
    expect(refusalCode(() => readPrivateJson(join(link, 'file.json')))).toBe('private_symlink');
  });

  it('refuses a symlink as the grandparent directory', () => {
    counter += 1;
    const grand = join(base, `grand-${counter}`);
    mkdirSync(join(grand, 'sub'), { recursive: true, mode: 0o700 });
    writeFileSync(join(grand, 'sub', 'file.json'), '{}', { mode: 0o600 });
    const link = join(base, `grand-link-${counter}`);
    symlinkSync(grand, link);
    expect(readPrivateJson(join(grand, 'sub', 'file.json'))).toEqual({});
    expect(refusalCode(() => readPrivateJson(join(link, 'sub', 'file.json')))).toBe('private_symlink');
  });

  it('refuses a symlink as the final component, even to a valid private file', () => {
    const { dir } = privateFile();
    symlinkSync('file.json', join(dir, 'link.json'));
    expect(refusalCode(() => readPrivateJson(join(dir, 'link.json')))).toBe('private_symlink');
  });

  it('refuses a dangling symlink', () => {
    const { dir } = privateFile();
    symlinkSync('absent.json', join(dir, 'dangling.json'));
    expect(refusalCode(() => readPrivateJson(join(dir, 'dangling.json')))).toBe('private_symlink');
  });
});

describe('readPrivateJson: file shape', () => {
  it('refuses a hard-linked file (nlink 2)', () => {
    const { dir, file } = privateFile();
    linkSync(file, join(dir, 'second-name.json'));
    expect(lstatSync(file).nlink).toBe(2);
    expect(refusalCode(() => readPrivateJson(file))).toBe('private_hard_linked');
  });

  it.each([
    ['0640 (group read)', 0o640],
    ['0620 (group write)', 0o620],
    ['0610 (group execute)', 0o610],
    ['0604 (other read)', 0o604],
    ['0602 (other write)', 0o602],
    ['0601 (other execute)', 0o601],
  ])('refuses mode %s', (_label, mode) => {
    const { file } = privateFile();
    chmodSync(file, mode);
    expect(refusalCode(() => readPrivateJson(file))).toBe('private_mode_too_open');
  });

  it.each([
    ['0750', 0o750],
    ['0705', 0o705],
    ['0770', 0o770],
    ['0701', 0o701],
  ])('refuses a parent with mode %s', (_label, mode) => {
    const { dir, file } = privateFile();
    chmodSync(dir, mode);
    expect(refusalCode(() => readPrivateJson(file))).toBe('private_parent_not_private');
  });

  it('refuses a parent owned by another user (the shared /tmp)', () => {
    const shared = lstatSync('/tmp');
    expect(shared.uid).not.toBe(process.geteuid?.());
    const file = join('/tmp', `sealkit-private-${process.pid}-${counter}.json`);
    writeFileSync(file, '{}', { mode: 0o600 });
    try {
      expect(refusalCode(() => readPrivateJson(file))).toBe('private_parent_not_private');
    } finally {
      unlinkSync(file);
    }
  });

  it('refuses a file owned by another user before looking at its mode or parent', () => {
    const fixtures = process.env.SEALKIT_ROOT_FIXTURES;
    // Under `npm test` as root the runner prepares a root-owned 0600 file in a
    // directory the test user owns; otherwise /etc/passwd (root-owned, regular).
    const foreign = fixtures === undefined ? '/etc/passwd' : join(fixtures, 'foreign-owned.json');
    expect(lstatSync(foreign).uid).not.toBe(process.geteuid?.());
    expect(refusalCode(() => readPrivateJson(foreign))).toBe('private_not_owned');
  });

  it('refuses a FIFO without blocking on it', { timeout: 5000 }, () => {
    const { dir } = privateFile();
    expect(spawnSync('mkfifo', ['-m', '0600', join(dir, 'fifo.json')]).status).toBe(0);
    expect(refusalCode(() => readPrivateJson(join(dir, 'fifo.json')))).toBe('private_not_regular');
  });

  it('refuses a socket', async () => {
    const { dir } = privateFile();
    const server = createServer();
    const path = join(dir, 'socket.json');
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(refusalCode(() => readPrivateJson(path))).toBe('private_not_regular');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses a directory where a file is expected, and a device', () => {
    const { dir } = privateFile();
    mkdirSync(join(dir, 'dir.json'), { mode: 0o700 });
    expect(refusalCode(() => readPrivateJson(join(dir, 'dir.json')))).toBe('private_not_regular');
    expect(refusalCode(() => readPrivateJson('/dev/null'))).toBe('private_not_regular');
  });

  it('refuses a missing file, a missing parent and a parent that is a file', () => {
    const { dir, file } = privateFile();
    expect(refusalCode(() => readPrivateJson(join(dir, 'absent.json')))).toBe('private_missing');
    expect(refusalCode(() => readPrivateJson(join(dir, 'absent', 'file.json')))).toBe('private_missing');
    expect(refusalCode(() => readPrivateJson(join(file, 'file.json')))).toBe('private_missing');
  });

  it('refuses paths that cannot name a file', () => {
    const { dir } = privateFile();
    for (const path of ['', `${dir}/`, `${dir}/.`, `${dir}/..`, `${dir}/file.json\0`, `${dir}/\uD800.json`]) {
      expect(refusalCode(() => readPrivateJson(path))).toBe('private_path_invalid');
    }
  });

  it('fails closed as unverifiable when the file cannot be opened (EACCES)', () => {
    const { file } = privateFile();
    chmodSync(file, 0o000);
    expect(refusalCode(() => readPrivateJson(file))).toBe('private_unverifiable');
  });

  it('fails closed as unverifiable when a component cannot be searched', () => {
    const { dir } = privateFile();
    mkdirSync(join(dir, 'locked'), { mode: 0o700 });
    writeFileSync(join(dir, 'locked', 'file.json'), '{}', { mode: 0o600 });
    chmodSync(join(dir, 'locked'), 0o600);
    try {
      expect(refusalCode(() => readPrivateJson(join(dir, 'locked', 'file.json')))).toBe(
        'private_unverifiable',
      );
    } finally {
      chmodSync(join(dir, 'locked'), 0o700);
    }
  });
});

describe('readPrivateJson: size', () => {
  it('accepts exactly maxBytes and refuses maxBytes + 1', () => {
    const exact = privateFile('{"a":"1234567"}');
    expect(lstatSync(exact.file).size).toBe(15);
    expect(readPrivateJson(exact.file, { maxBytes: 15 }).a).toBe('1234567');
    const over = privateFile('{"a":"12345678"}');
    expect(refusalCode(() => readPrivateJson(over.file, { maxBytes: 15 }))).toBe('private_too_large');
    expect(refusalCode(() => readPrivateFile(over.file, { maxBytes: 15 }))).toBe('private_too_large');
  });

  it('accepts exactly 10 MiB by default and refuses one byte more', () => {
    const document = (size: number) => {
      const bytes = Buffer.alloc(size, 0x78);
      bytes.write('{"pad":"', 0);
      bytes.write('"}', size - 2);
      return bytes;
    };
    const exact = privateFile(document(DEFAULT_PRIVATE_MAX_BYTES));
    expect((readPrivateJson(exact.file).pad as string).length).toBe(DEFAULT_PRIVATE_MAX_BYTES - 10);
    const over = privateFile(document(DEFAULT_PRIVATE_MAX_BYTES + 1));
    expect(refusalCode(() => readPrivateJson(over.file))).toBe('private_too_large');
  });

  it('reads an empty file as bytes and refuses it as JSON', () => {
    const { file } = privateFile('');
    expect(readPrivateFile(file).length).toBe(0);
    expect(refusalCode(() => readPrivateJson(file))).toBe('json_malformed');
  });

  it('treats a bad maxBytes as a bug, not as a property of the file', () => {
    const { file } = privateFile();
    expect(refusalCode(() => readPrivateFile(file, { maxBytes: -1 }))).toBe('internal_error');
    expect(refusalCode(() => readPrivateFile(file, { maxBytes: Number.NaN }))).toBe('internal_error');
  });
});

describe('readPrivateJson: content', () => {
  it('refuses bytes that are not UTF-8', () => {
    const { file } = privateFile(Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
    expect(refusalCode(() => readPrivateJson(file))).toBe('json_not_utf8');
  });

  it('refuses a byte order mark', () => {
    const { file } = privateFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]));
    expect(refusalCode(() => readPrivateJson(file))).toBe('json_not_utf8');
  });

  it('refuses a duplicate key', () => {
    const { file } = privateFile('{"a":1,"b":{"c":1,"c":2}}');
    expect(refusalCode(() => readPrivateJson(file))).toBe('json_duplicate_key');
  });

  it.each(['[1,2]', '"text"', '1', 'null', 'true'])('refuses %s, which is not an object', (content) => {
    const { file } = privateFile(content);
    expect(refusalCode(() => readPrivateJson(file))).toBe('private_not_object');
  });

  it('refuses malformed JSON', () => {
    const { file } = privateFile('{"a":');
    expect(refusalCode(() => readPrivateJson(file))).toBe('json_malformed');
  });
});
