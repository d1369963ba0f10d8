import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFdHashing, copyStreamHashing } from './copy.js';
import {
  isSha256Hex,
  isSha256Prefixed,
  Sha256Accumulator,
  sha256Hex,
  sha256OfStream,
  sha256Prefixed,
  toHex,
} from './sha256.js';

// Known answers from FIPS 180-2 examples.
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('sha256', () => {
  it('gives the known answers in bare-hex and prefixed forms', () => {
    expect(sha256Hex(new Uint8Array())).toBe(EMPTY);
    expect(sha256Hex('abc')).toBe(ABC);
    expect(sha256Prefixed(Buffer.from('abc'))).toBe(`sha256:${ABC}`);
    expect(toHex(sha256Prefixed('abc'))).toBe(ABC);
  });

  it('recognises only lowercase 64-hex forms', () => {
    expect(isSha256Hex(ABC)).toBe(true);
    expect(isSha256Hex(ABC.toUpperCase())).toBe(false);
    expect(isSha256Hex(ABC.slice(1))).toBe(false);
    expect(isSha256Prefixed(`sha256:${ABC}`)).toBe(true);
    expect(isSha256Prefixed(`SHA256:${ABC}`)).toBe(false);
    expect(isSha256Prefixed(ABC)).toBe(false);
  });

  it('hashes a stream to the same digest as the whole buffer', async () => {
    const data = Buffer.alloc(300_000, 7);
    const chunks = [data.subarray(0, 1), data.subarray(1, 70_000), data.subarray(70_000)];
    const result = await sha256OfStream(Readable.from(chunks));
    expect(result).toEqual({ hex: sha256Hex(data), bytes: data.length });
  });

  it('accumulates piecewise', () => {
    const acc = new Sha256Accumulator();
    acc.update(Buffer.from('a'));
    acc.update(Buffer.from('bc'));
    expect(acc.finish()).toEqual({ hex: ABC, bytes: 3 });
  });
});

describe('hashing copies', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-digest-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies a file descriptor and hashes exactly the bytes written', () => {
    const data = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
    writeFileSync(join(dir, 'in'), data);
    const source = openSync(join(dir, 'in'), 'r');
    const target = openSync(join(dir, 'out'), 'wx');
    const result = copyFdHashing(source, target);
    closeSync(source);
    closeSync(target);
    expect(result).toEqual({ hex: sha256Hex(data), bytes: data.length, exceeded: false });
    expect(readFileSync(join(dir, 'out')).equals(data)).toBe(true);
  });

  it('stops when the source exceeds the bound', () => {
    writeFileSync(join(dir, 'in'), Buffer.alloc(100_001));
    const source = openSync(join(dir, 'in'), 'r');
    const target = openSync(join(dir, 'out'), 'wx');
    const atBound = copyFdHashing(source, target, { maxBytes: 100_001 });
    closeSync(source);
    closeSync(target);
    expect(atBound.exceeded).toBe(false);

    const again = openSync(join(dir, 'in'), 'r');
    const target2 = openSync(join(dir, 'out2'), 'wx');
    const over = copyFdHashing(again, target2, { maxBytes: 100_000 });
    closeSync(again);
    closeSync(target2);
    expect(over.exceeded).toBe(true);
  });

  it('streams each chunk to the writer after hashing it', async () => {
    const written: Buffer[] = [];
    const chunks = [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')];
    const result = await copyStreamHashing(Readable.from(chunks), (chunk) => {
      written.push(Buffer.from(chunk));
    });
    expect(result).toEqual({ hex: ABC, bytes: 3, exceeded: false });
    expect(Buffer.concat(written).toString()).toBe('abc');
    const bounded = await copyStreamHashing(Readable.from(chunks), () => undefined, { maxBytes: 2 });
    expect(bounded.exceeded).toBe(true);
  });
});
