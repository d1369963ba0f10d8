import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
// The causes module alone: `json` must run where the system-call binding cannot load.
import { readFailureCause } from '../fs/causes.js';
import type { Refusal } from '../refusal/index.js';
import { type InputRefusalCode, refuseInput as refuseInputCode } from './refusals.js';

/**
 * Reads at most `maxBytes + 1` bytes from a file or from a stream (standard
 * input), so the caller's size check (which refuses anything over `maxBytes`)
 * sees that an input is too large without this process ever holding an
 * unbounded input in memory.
 */
export async function readBoundedInput(
  source: string,
  maxBytes: number,
  stdin: AsyncIterable<Uint8Array | string> = process.stdin,
  /** Which input this is, for a command that reads several (`execution_grant`). */
  role?: string,
): Promise<Uint8Array> {
  const refuseInput = (code: InputRefusalCode, hint?: string): Refusal =>
    refuseInputCode(code, {
      ...(role === undefined ? {} : { role }),
      ...(hint === undefined ? {} : { hint }),
    });
  if (source === '-') {
    // A directory on standard input (`< somedir`) reads as an empty stream: refuse it as a path would be.
    if (stdin === process.stdin && isDirectory(0)) throw refuseInput('input_not_regular');
    return readBoundedStream(stdin, maxBytes, refuseInput);
  }
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    // (libuv opens every descriptor with O_CLOEXEC.)
    fd = openSync(source, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error: unknown) {
    const code = (error as NodeJS.ErrnoException).code;
    throw code === 'ENOENT'
      ? refuseInput('input_missing')
      : refuseInput('input_unreadable', code === undefined ? undefined : readFailureCause(code));
  }
  try {
    if (!fstatSync(fd).isFile()) throw refuseInput('input_not_regular');
    return readBoundedFd(fd, maxBytes + 1, refuseInput);
  } finally {
    closeSync(fd);
  }
}

function isDirectory(fd: number): boolean {
  try {
    return fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

function readBoundedFd(
  fd: number,
  limit: number,
  refuseInput: (code: InputRefusalCode) => Refusal,
): Uint8Array {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const buffer = Buffer.allocUnsafe(Math.min(1 << 20, limit - total));
    let read: number;
    try {
      read = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      throw refuseInput('input_unreadable');
    }
    if (read === 0) break;
    chunks.push(buffer.subarray(0, read));
    total += read;
  }
  return Buffer.concat(chunks, total);
}

async function readBoundedStream(
  stream: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
  refuseInput: (code: InputRefusalCode) => Refusal,
): Promise<Uint8Array> {
  const limit = maxBytes + 1;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const piece of stream) {
      const chunk =
        typeof piece === 'string'
          ? Buffer.from(piece)
          : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      const take = Math.min(chunk.length, limit - total);
      chunks.push(chunk.subarray(0, take));
      total += take;
      if (total >= limit) break;
    }
  } catch {
    throw refuseInput('input_unreadable');
  }
  return Buffer.concat(chunks, total);
}
