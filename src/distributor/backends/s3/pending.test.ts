import { describe, expect, it } from 'vitest';
import { Refusal } from '../../../core/refusal/index.js';
import type { BundlePath, Instant } from '../../model/types.js';
import { type PendingMarker, parsePending, serializePending } from './pending.js';

const marker: PendingMarker = {
  schema_version: 1,
  run: '0123456789abcdef0123456789abcdef',
  expires: '2026-06-01T10:00:00.5Z' as Instant,
  outputs: ['b.html', 'a/z.md', 'a.md'] as BundlePath[],
};

function codeOf(bytes: string): string | undefined {
  try {
    parsePending(Buffer.from(bytes, 'utf8'));
    return undefined;
  } catch (error) {
    return error instanceof Refusal ? error.code : 'not a refusal';
  }
}

describe('pending marker', () => {
  it('serializes canonically (RFC 8785, outputs in UTF-8 byte order, LF) and parses back', () => {
    const bytes = serializePending(marker);
    expect(Buffer.from(bytes).toString('utf8')).toBe(
      '{"expires":"2026-06-01T10:00:00.5Z","outputs":["a.md","a/z.md","b.html"],"run":"0123456789abcdef0123456789abcdef","schema_version":1}\n',
    );
    expect(parsePending(bytes)).toEqual({ ...marker, outputs: ['a.md', 'a/z.md', 'b.html'] });
  });

  it('refuses anything sealkit would not have written, as destination_state_invalid', () => {
    const good = JSON.parse(Buffer.from(serializePending(marker)).toString('utf8')) as Record<
      string,
      unknown
    >;
    const variants: Record<string, unknown>[] = [
      { ...good, extra: 1 },
      { ...good, schema_version: 2 },
      { ...good, run: 'ABCDEF0123456789abcdef0123456789' },
      { ...good, run: 'short' },
      { ...good, expires: '2026-06-01T12:00:00.5+02:00' },
      { ...good, expires: 'tomorrow' },
      { ...good, outputs: ['b.html', 'a.md'] },
      { ...good, outputs: ['a.md', 'a.md'] },
      { ...good, outputs: ['../escape'] },
      { ...good, outputs: ['.distributor.json'] },
      { ...good, outputs: [1] },
      { ...good, outputs: 'a.md' },
    ];
    for (const variant of variants) expect(codeOf(JSON.stringify(variant))).toBe('destination_state_invalid');
    const { run: _run, ...withoutRun } = good;
    expect(codeOf(JSON.stringify(withoutRun))).toBe('destination_state_invalid');
    expect(codeOf('{"schema_version":1,"schema_version":1}')).toBe('destination_state_invalid');
    expect(codeOf('[]')).toBe('destination_state_invalid');
    expect(codeOf('\u00ff')).toBe('destination_state_invalid');
  });
});
