import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { expectGolden } from '../../../test/helpers/golden.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';

describe('sealkit json', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-json-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the RFC 8785 form of a file with no trailing newline', () => {
    writeFileSync(
      join(dir, 'doc.json'),
      '{ "b": [1e21, 0.1, -0], "a": "\\u00e9\\u2028", "€": 1, "\\ud83d\\ude00": 2 }',
    );
    const run = runCli(['json', 'canonicalize', join(dir, 'doc.json')]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString('utf8')).toBe('{"a":"é\u2028","b":[1e+21,0.1,0],"€":1,"😀":2}');
    expect(run.stderr.length).toBe(0);
  });

  it('reads standard input and prints the Python-compatible form with --python', () => {
    const run = runCli(['json', 'canonicalize', '--python', '-'], {
      input: '{"€":1,"😀":2,"big":123456789012345678901234567890}',
    });
    expect(run.status).toBe(0);
    // Python sorts by code point: U+20AC before U+1F600; RFC 8785 by UTF-16 unit the other way round.
    expect(run.stdout.toString('utf8')).toBe('{"big":123456789012345678901234567890,"€":1,"😀":2}');
  });

  it('prints the SHA-256 of the canonical bytes', () => {
    const canonical = runCli(['json', 'canonicalize'], { input: '{"b":1,"a":2}' }).stdout;
    const run = runCli(['json', 'digest'], { input: '{"b":1,"a":2}' });
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}\n`);
    const empty = runCli(['json', 'digest', '--python'], { input: '{}' });
    expect(empty.stdout.toString()).toBe(
      'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n',
    );
    const bare = runCli(['json', 'digest', '--python', '--bare'], { input: '{}' });
    expect(bare.stdout.toString()).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n');
    expect(runCli(['json', 'canonicalize', '--bare'], { input: '{}' }).status).toBe(1);
  });

  it('gives one JSON object with --json', () => {
    const run = runCli(['json', 'digest', '--json'], { input: '[1,2]' });
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout.toString()) as Record<string, unknown>;
    expect(out).toMatchObject({ status: 'ok', form: 'rfc8785', bytes: 5 });
    expect(out.sha256).toBe(createHash('sha256').update('[1,2]').digest('hex'));
  });

  it('refuses with exit 2, names the file and the place, and quotes no key or value', () => {
    const planted = '{"SECRET_COLUMN_ZQ": "VALUE_ZQ_1",\n "SECRET_COLUMN_ZQ": 2}';
    writeFileSync(join(dir, 'customer_schema_zq.json'), planted);
    const path = join(dir, 'customer_schema_zq.json');
    const human = runCli(['json', 'canonicalize', path]);
    expect(human.status).toBe(2);
    expect(human.stdout.length).toBe(0);
    expect(human.stderr.toString()).toBe(
      `error[json_duplicate_key]: a JSON object repeats a key\n  --> ${path}:2:2\n  = help: this key is first set on line 1, column 2; keep one of the two\n`,
    );
    const json = runCli(['json', 'digest', '--json', path]);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toEqual({
      status: 'refused',
      reason_code: 'json_duplicate_key',
      category: 'malformed',
      message: 'a JSON object repeats a key',
      location: { path, line: 2, column: 2 },
      hint: 'this key is first set on line 1, column 2; keep one of the two',
    });
    for (const run of [human, json]) {
      expect(scanForSentinels(run, [], ['SECRET_COLUMN_ZQ', 'VALUE_ZQ_1'])).toEqual([]);
    }
  });

  it.each([
    ['a BOM', Buffer.from('\ufeff{}'), 'json_not_utf8'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'json_not_utf8'],
    ['trailing data', Buffer.from('{} {}'), 'json_trailing_data'],
    ['a lone surrogate', Buffer.from('["\\ud800"]'), 'json_lone_surrogate'],
    ['malformed JSON', Buffer.from('{"a":}'), 'json_malformed'],
  ])('refuses %s', (_label, input, code) => {
    const run = runCli(['json', 'canonicalize', '--json'], { input });
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ status: 'refused', reason_code: code });
  });

  it('refuses floats in the Python-compatible form', () => {
    const run = runCli(['json', 'canonicalize', '--python', '--json'], { input: '{"a":1.5}' });
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ reason_code: 'canonical_float_refused' });
  });

  it('bounds the input size before parsing', () => {
    const atBound = runCli(['json', 'digest', '--max-bytes', '7'], { input: '[1,2,3]' });
    expect(atBound.status).toBe(0);
    const over = runCli(['json', 'digest', '--max-bytes', '6', '--json'], { input: '[1,2,3]' });
    expect(over.status).toBe(2);
    expect(JSON.parse(over.stdout.toString())).toMatchObject({ reason_code: 'json_too_large' });
  });

  it('regression: read from a terminal, it says it is waiting for the document (it looked like a hang)', () => {
    // The CLI on a real terminal (python3's pty: Node has none to offer): the
    // note first, then the document typed and Ctrl-D, then its digest.
    const script = String.raw`
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
seen = b""
def read_until(marker):
    global seen
    end = time.time() + 20
    while marker not in seen and time.time() < end:
        try: seen += os.read(fd, 65536)
        except OSError: break
read_until(b"Ctrl-D")
os.write(fd, b'{"b":1,"a":2}\n')
time.sleep(0.3)
os.write(fd, b"\x04")
read_until(b"sha256:")
time.sleep(0.5)
try: seen += os.read(fd, 65536)
except OSError: pass
sys.stdout.write(seen.decode(errors="replace"))
`;
    const run = spawnSync(
      'python3',
      ['-c', script, process.execPath, join(REPO_ROOT, 'bin', 'sealkit.js'), 'json', 'digest'],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.stderr).toBe('');
    const screen = run.stdout.replaceAll('\r', '');
    const digest = `sha256:${createHash('sha256').update('{"a":2,"b":1}').digest('hex')}`;
    expect(screen).toContain(
      'sealkit: reading JSON from standard input: type or paste it, then Ctrl-D on a line of its own; or name a FILE\n',
    );
    expect(screen.indexOf('Ctrl-D')).toBeLessThan(screen.indexOf('{"b":1'));
    expect(screen).toContain(`${digest}\n`);
    // Not on a terminal (a pipe, a file), nothing but the digest.
    const piped = runCli(['json', 'digest'], { cwd: dir, input: '{"b":1,"a":2}' });
    expect(piped.stderr.toString()).toBe('');
    expect(piped.stdout.toString()).toBe(`${digest}\n`);
  });

  it('regression: a directory on standard input is refused as not a regular file, not as malformed JSON', () => {
    mkdirSync(join(dir, 'somedir'));
    const fd = openSync(join(dir, 'somedir'), 'r');
    try {
      const human = runCli(['json', 'canonicalize'], { cwd: dir, stdinFd: fd });
      expect(human.status).toBe(2);
      expect(human.stderr.toString()).toBe(
        'error[input_not_regular]: the input is not a regular file\n  --> <stdin>\n',
      );
      const digest = runCli(['json', 'digest', '-', '--json'], { cwd: dir, stdinFd: fd });
      expect(digest.status).toBe(2);
      expect(JSON.parse(digest.stdout.toString())).toMatchObject({
        reason_code: 'input_not_regular',
        location: { path: '<stdin>' },
      });
    } finally {
      closeSync(fd);
    }
    // A regular file on standard input is still read.
    writeFileSync(join(dir, 'doc.json'), '{"b":1,"a":2}');
    const file = openSync(join(dir, 'doc.json'), 'r');
    try {
      const run = runCli(['json', 'canonicalize'], { cwd: dir, stdinFd: file });
      expect(run.stdout.toString()).toBe('{"a":2,"b":1}');
    } finally {
      closeSync(file);
    }
  });

  it('names a missing file, an unreadable file and a directory as the user gave them', () => {
    // The document is the operator's own input (a located domain, docs/refusals.md#two-policies).
    const missing = runCli(['json', 'digest', 'absent_zq.json'], { cwd: dir });
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString()).toBe(
      'error[input_missing]: the input file does not exist\n  --> absent_zq.json\n',
    );
    mkdirSync(join(dir, 'data'));
    const directory = runCli(['json', 'digest', '--json', './data'], { cwd: dir });
    expect(directory.status).toBe(2);
    expect(JSON.parse(directory.stdout.toString())).toMatchObject({
      reason_code: 'input_not_regular',
      location: { path: './data' },
    });
    writeFileSync(join(dir, 'data', 'locked.json'), '{}', { mode: 0o000 });
    const unreadable = runCli(['json', 'digest', 'data/locked.json'], { cwd: dir });
    expect(unreadable.status).toBe(2);
    expect(unreadable.stderr.toString()).toBe(
      // Regression: the refusal named the file and no cause.
      'error[input_unreadable]: the input file cannot be read\n  --> data/locked.json\n  = help: the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders\n',
    );
  });

  it.each([['canonicalize'], ['digest']])(
    'json %s on a misspelt file names the file beside it, human and --json',
    (command) => {
      mkdirSync(join(dir, 'reports'));
      writeFileSync(join(dir, 'reports', 'doc.json'), '{}');
      const human = runCli(['json', command, 'reports/doc.jsn'], { cwd: dir });
      expect(human.status).toBe(2);
      expect(human.stderr.toString()).toBe(
        "error[input_missing]: the input file does not exist\n  --> reports/doc.jsn\n  = help: did you mean 'reports/doc.json'?\n",
      );
      const json = runCli(['json', command, 'reports/doc.jsn', '--json'], { cwd: dir });
      expect(json.status).toBe(2);
      expect(JSON.parse(json.stdout.toString())).toEqual({
        status: 'refused',
        reason_code: 'input_missing',
        category: 'missing',
        message: 'the input file does not exist',
        location: { path: 'reports/doc.jsn' },
        hint: "did you mean 'reports/doc.json'?",
      });
      // A misspelt folder on the way is fixed in place, the rest kept as written.
      const above = runCli(['json', command, 'reprots/doc.json'], { cwd: dir });
      expect(above.stderr.toString()).toContain("  = help: did you mean 'reports/doc.json'?\n");
    },
  );

  it('regression: json digest offers no other report of a series, no start of a longer name and no dead link', () => {
    // `w23` was offered `w22`, `ful` `full.json` and `dead.jsn` the dangling link `dead.json`.
    mkdirSync(join(dir, 'reports', 'w22'), { recursive: true });
    writeFileSync(join(dir, 'reports', 'w22', 'doc.json'), '{}');
    writeFileSync(join(dir, 'full.json'), '{}');
    symlinkSync('gone.json', join(dir, 'dead.json'));
    for (const written of ['reports/w23/doc.json', 'ful', 'dead.jsn']) {
      const run = runCli(['json', 'digest', written], { cwd: dir });
      expect(run.status).toBe(2);
      expect(run.stderr.toString()).toBe(
        `error[input_missing]: the input file does not exist\n  --> ${written}\n`,
      );
    }
    const typo = runCli(['json', 'digest', 'reports/W22/doc.json'], { cwd: dir });
    expect(typo.stderr.toString()).toBe(
      "error[input_missing]: the input file does not exist\n  --> reports/W22/doc.json\n  = help: did you mean 'reports/w22/doc.json'?\n",
    );
  });

  it.each([['canonicalize'], ['digest']])(
    'regression: json %s with an empty FILE is a usage error naming it, as edition check is',
    (command) => {
      // It was refused (exit 2) as input_missing with no location: which input was meant?
      const human = runCli(['json', command, ''], { cwd: dir });
      expect(human.status).toBe(1);
      expect(human.stdout.length).toBe(0);
      expect(human.stderr.toString().split('\n')[0]).toBe('sealkit: argument FILE is an empty string');
      expect(human.stderr.toString()).toContain(`Usage: sealkit json ${command} `);
      const json = runCli(['json', command, '', '--json'], { cwd: dir });
      expect(json.status).toBe(1);
      expect(JSON.parse(json.stdout.toString())).toMatchObject({
        status: 'usage_error',
        message: 'argument FILE is an empty string',
      });
      // Absent and '-' still read standard input.
      expect(runCli(['json', command], { cwd: dir, input: '{}' }).status).toBe(0);
      expect(runCli(['json', command, '-'], { cwd: dir, input: '{}' }).status).toBe(0);
      expect(runCli(['edition', 'check', ''], { cwd: dir }).status).toBe(1);
    },
  );

  it('treats an unknown flag or a surplus argument as a usage error that writes nothing', () => {
    const before = readdirSync(dir);
    const unknown = runCli(['json', 'canonicalize', '--update', join(dir, 'x.json')]);
    expect(unknown.status).toBe(1);
    expect(unknown.stdout.length).toBe(0);
    expect(unknown.stderr.toString()).toContain('unknown option --update');
    const surplus = runCli(['json', 'digest', 'a', 'b', '--json']);
    expect(surplus.status).toBe(1);
    expect(JSON.parse(surplus.stdout.toString())).toMatchObject({ status: 'usage_error' });
    expect(runCli(['json', 'digest', '--max-bytes', 'lots']).status).toBe(1);
    expect(readdirSync(dir)).toEqual(before);
  });
});

/**
 * One bad input of the golden corpus: files written into a fresh folder that
 * is the CLI's working directory, so every path in the output is relative,
 * as the user typed it.
 */
interface BadInput {
  readonly name: string;
  readonly args: readonly string[];
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
  readonly directories?: readonly string[];
  readonly stdin?: string;
  readonly unreadable?: string;
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const BAD_INPUTS: readonly BadInput[] = [
  {
    name: 'malformed-line-3',
    args: ['canonicalize', 'data/orders.json'],
    files: { 'data/orders.json': '{\n  "id": 17,\n  "currency": EUR,\n  "total": 12\n}\n' },
  },
  {
    name: 'duplicate-key',
    args: ['digest', 'data/orders.json'],
    files: { 'data/orders.json': '{\n  "id": 17,\n  "status": "paid",\n  "id": 18\n}\n' },
  },
  {
    name: 'lone-surrogate',
    args: ['canonicalize', 'names.json'],
    files: { 'names.json': '[\n  "ok",\n  "broken \\ud83d here"\n]\n' },
  },
  { name: 'bom', args: ['digest', 'bom.json'], files: { 'bom.json': '\ufeff{"a": 1}\n' } },
  {
    name: 'invalid-utf8',
    args: ['digest', 'latin1.json'],
    // "café" saved as Latin-1 on line 2: the byte E9 is not UTF-8.
    files: {
      'latin1.json': Buffer.from([...Buffer.from('{\n  "name": "caf'), 0xe9, ...Buffer.from('"\n}\n')]),
    },
  },
  { name: 'too-deep', args: ['digest', 'deep.json'], files: { 'deep.json': `${nested(65)}\n` } },
  {
    name: 'trailing-garbage',
    args: ['canonicalize', 'two.json'],
    files: { 'two.json': '{"a": 1}\n{"b": 2}\n' },
  },
  {
    name: 'trailing-comma',
    args: ['canonicalize', 'list.json'],
    files: { 'list.json': '[\n  1,\n  2,\n]\n' },
  },
  {
    name: 'unclosed-string',
    args: ['canonicalize', 'config.json'],
    files: { 'config.json': '{\n  "title": "sales report,\n  "year": 2024\n}\n' },
  },
  { name: 'empty-file', args: ['digest', 'empty.json'], files: { 'empty.json': '' } },
  { name: 'missing-file', args: ['digest', 'data/absent.json'], directories: ['data'] },
  { name: 'misspelt-file', args: ['digest', 'data/ordres.json'], files: { 'data/orders.json': '{}\n' } },
  { name: 'directory', args: ['canonicalize', 'data'], directories: ['data'] },
  {
    name: 'unreadable-file',
    args: ['digest', 'secret.json'],
    files: { 'secret.json': '{}' },
    unreadable: 'secret.json',
  },
  {
    name: 'float-python',
    args: ['canonicalize', '--python', 'prices.json'],
    files: { 'prices.json': '{"price": 1.5}\n' },
  },
  {
    name: 'too-large',
    args: ['digest', '--max-bytes', '8', 'big.json'],
    files: { 'big.json': '[1, 2, 3, 4]\n' },
  },
  {
    name: 'integer-too-long',
    args: ['digest', 'long.json'],
    files: { 'long.json': `{\n  "n": ${'9'.repeat(4301)}\n}\n` },
  },
  { name: 'stdin-malformed', args: ['digest', '-'], stdin: '{"a": 1,\n "b" 2}\n' },
  {
    // Finite as written, out of range for a double: said so, where it is written.
    name: 'number-out-of-range',
    args: ['canonicalize', 'huge.json'],
    files: { 'huge.json': '{\n  "a": 1,\n  "big": 1e400\n}\n' },
  },
  {
    // Regression: named the file only. The same digits inside a string are not the integer refused.
    name: 'unsafe-integer',
    args: ['digest', 'orders.json'],
    files: { 'orders.json': '{\n  "note": "12345678901234567890",\n  "order_no": 12345678901234567890\n}\n' },
  },
];

function transcript(args: readonly string[], run: ReturnType<typeof runCli>): string {
  return [
    `$ sealkit json ${args.join(' ')}`,
    `exit: ${run.status}`,
    '--- stdout',
    run.stdout.toString('utf8'),
    '--- stderr',
    run.stderr.toString('utf8'),
  ].join('\n');
}

describe('sealkit json: golden corpus of bad inputs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-json-corpus-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(BAD_INPUTS)('$name: names the input, the line and the column, human and --json', (bad) => {
    for (const folder of bad.directories ?? []) mkdirSync(join(dir, folder), { recursive: true });
    for (const [path, content] of Object.entries(bad.files ?? {})) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    if (bad.unreadable !== undefined) chmodSync(join(dir, bad.unreadable), 0o000);
    const options = { cwd: dir, ...(bad.stdin !== undefined ? { input: bad.stdin } : {}) };
    const human = runCli(['json', ...bad.args], options);
    const json = runCli(['json', ...bad.args, '--json'], options);
    expect(human.status).toBe(2);
    expect(json.status).toBe(2);
    // Human mode: nothing on stdout, so `>/dev/null` never hides the refusal.
    expect(human.stdout.length).toBe(0);
    expect(json.stderr.length).toBe(0);
    const record = JSON.parse(json.stdout.toString()) as { location?: { path?: string } };
    expect(record.location?.path).toBe(bad.stdin !== undefined ? '<stdin>' : bad.args.at(-1));
    // Neither form prints the temporary folder: relative stays relative.
    expect(`${human.stderr}${json.stdout}`).not.toContain(dir);
    expectGolden(
      join(REPO_ROOT, 'src', 'core', 'json', 'testdata', 'refusals', `${bad.name}.txt`),
      `${transcript(bad.args, human)}\n${transcript([...bad.args, '--json'], json)}`,
    );
  });
});

describe('sealkit', () => {
  it('prints help and version', () => {
    const help = runCli(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain('sealkit json canonicalize');
    const sub = runCli(['json', 'canonicalize', '--help']);
    expect(sub.status).toBe(0);
    expect(sub.stdout.toString()).toContain('Usage: sealkit json canonicalize');
    const version = runCli(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.toString()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('refuses an unknown command as a usage error', () => {
    const run = runCli(['frobnicate']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain('unknown command');
  });
});
