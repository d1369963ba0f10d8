import { createHash, type Hash, hash } from 'node:crypto';

declare const hexBrand: unique symbol;
declare const prefixedBrand: unique symbol;

/** 64 lowercase hexadecimal characters. A digest is not a path or a name: the brand keeps them apart. */
export type Sha256Hex = string & { readonly [hexBrand]: true };
/** `sha256:` followed by 64 lowercase hexadecimal characters, the form manifests carry. */
export type Sha256Prefixed = string & { readonly [prefixedBrand]: true };

const HEX = /^[0-9a-f]{64}$/;
const PREFIXED = /^sha256:[0-9a-f]{64}$/;

export function isSha256Hex(value: string): value is Sha256Hex {
  return HEX.test(value);
}

export function isSha256Prefixed(value: string): value is Sha256Prefixed {
  return PREFIXED.test(value);
}

export function toPrefixed(hex: Sha256Hex): Sha256Prefixed {
  return `sha256:${hex}` as Sha256Prefixed;
}

export function toHex(prefixed: Sha256Prefixed): Sha256Hex {
  return prefixed.slice('sha256:'.length) as Sha256Hex;
}

/** One-shot: `crypto.hash` skips the Hash object a streaming digest needs (most inputs here are small). */
export function sha256Hex(data: Uint8Array | string): Sha256Hex {
  return hash('sha256', data, 'hex') as Sha256Hex;
}

export function sha256Prefixed(data: Uint8Array | string): Sha256Prefixed {
  return toPrefixed(sha256Hex(data));
}

/** Hashes a stream chunk by chunk without holding it in memory. */
export async function sha256OfStream(source: AsyncIterable<Uint8Array | string>): Promise<HashedLength> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of source) {
    hash.update(chunk);
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
  }
  return { hex: hash.digest('hex') as Sha256Hex, bytes };
}

export interface HashedLength {
  readonly hex: Sha256Hex;
  readonly bytes: number;
}

/** Incremental hashing for callers that produce bytes piecewise. */
export class Sha256Accumulator {
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;

  update(chunk: Uint8Array): void {
    this.#hash.update(chunk);
    this.#bytes += chunk.byteLength;
  }

  get bytes(): number {
    return this.#bytes;
  }

  finish(): HashedLength {
    return { hex: this.#hash.digest('hex') as Sha256Hex, bytes: this.#bytes };
  }
}
