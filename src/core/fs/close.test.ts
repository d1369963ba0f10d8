import { describe, expect, it } from 'vitest';
import { closeEach, closeQuietly } from './close.js';

function handle(name: string, closed: string[], fails = false): { close(): void } {
  return {
    close() {
      closed.push(name);
      if (fails) throw new Error(`${name} failed`);
    },
  };
}

describe('closing handles', () => {
  it('closeEach closes every handle even after one fails, then throws the first failure', () => {
    const closed: string[] = [];
    expect(() =>
      closeEach([
        handle('a', closed),
        handle('b', closed, true),
        handle('c', closed, true),
        handle('d', closed),
      ]),
    ).toThrow('b failed');
    expect(closed).toEqual(['a', 'b', 'c', 'd']);
  });

  it('closeEach returns quietly when every close succeeds', () => {
    const closed: string[] = [];
    closeEach([handle('a', closed), handle('b', closed)]);
    expect(closed).toEqual(['a', 'b']);
  });

  it('closeQuietly swallows the failure of close', () => {
    const closed: string[] = [];
    expect(() => closeQuietly(handle('a', closed, true))).not.toThrow();
    expect(closed).toEqual(['a']);
  });
});
