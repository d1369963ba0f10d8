import { describe, expect, it } from 'vitest';
import type { Sha256Prefixed } from '../../../core/digest/index.js';
import { Refusal } from '../../../core/refusal/index.js';
import type { BundlePath, Instant } from '../../model/types.js';
import { normalizeClaims, type PendingMarker, parsePending, serializePending } from './pending.js';

const A = `sha256:${'a'.repeat(64)}` as Sha256Prefixed;
const B = `sha256:${'b'.repeat(64)}` as Sha256Prefixed;
const claim = (path: string, ...sha256: Sha256Prefixed[]) => ({ path: path as BundlePath, sha256 });

const marker: PendingMarker = {
  schema_version: 2,
  run: '0123456789abcdef0123456789abcdef',
  expires: '2026-06-01T10:00:00.5Z' as Instant,
  claims: [claim('b.html', B), claim('a/z.md', A), claim('a.md', B, A)],
};

function hintOf(bytes: string): string | undefined {
  try {
    parsePending(Buffer.from(bytes, 'utf8'));
    return undefined;
  } catch (error) {
    return error instanceof Refusal ? error.hint : 'not a refusal';
  }
}

function codeOf(bytes: string): string | undefined {
  try {
    parsePending(Buffer.from(bytes, 'utf8'));
    return undefined;
  } catch (error) {
    return error instanceof Refusal ? error.code : 'not a refusal';
  }
}

describe('pending marker', () => {
  it('serializes canonically (RFC 8785, claims in UTF-8 byte order, digests sorted, LF) and parses back', () => {
    const bytes = serializePending(marker);
    expect(Buffer.from(bytes).toString('utf8')).toBe(
      `{"claims":[{"path":"a.md","sha256":["${A}","${B}"]},{"path":"a/z.md","sha256":["${A}"]},{"path":"b.html","sha256":["${B}"]}],"expires":"2026-06-01T10:00:00.5Z","run":"0123456789abcdef0123456789abcdef","schema_version":2}\n`,
    );
    expect(parsePending(bytes)).toEqual({ ...marker, claims: normalizeClaims(marker.claims) });
  });

  it('merges claims of one path, uniting their digests', () => {
    expect(normalizeClaims([claim('x', B), claim('x', A, B), claim('w', A)])).toEqual([
      claim('w', A),
      claim('x', A, B),
    ]);
  });

  it('refuses anything sealkit would not have written, as destination_marker_invalid', () => {
    const good = JSON.parse(Buffer.from(serializePending(marker)).toString('utf8')) as Record<
      string,
      unknown
    >;
    const variants: Record<string, unknown>[] = [
      { ...good, extra: 1 },
      { ...good, schema_version: 1 },
      { ...good, run: 'ABCDEF0123456789abcdef0123456789' },
      { ...good, run: 'short' },
      { ...good, expires: '2026-06-01T12:00:00.5+02:00' },
      { ...good, expires: 'tomorrow' },
      { ...good, claims: [claim('b.html', A), claim('a.md', A)] },
      { ...good, claims: [claim('a.md', A), claim('a.md', B)] },
      { ...good, claims: [claim('../escape', A)] },
      { ...good, claims: [claim('.distributor.json', A)] },
      { ...good, claims: [claim('a.md')] },
      { ...good, claims: [claim('a.md', B, A)] },
      { ...good, claims: [claim('a.md', A, A)] },
      { ...good, claims: [{ path: 'a.md', sha256: ['sha256:00'] }] },
      { ...good, claims: [{ path: 'a.md', sha256: [A], size: 1 }] },
      { ...good, claims: ['a.md'] },
      { ...good, claims: 'a.md' },
    ];
    for (const variant of variants)
      expect(codeOf(JSON.stringify(variant))).toBe('destination_marker_invalid');
    const { run: _run, ...withoutRun } = good;
    expect(codeOf(JSON.stringify(withoutRun))).toBe('destination_marker_invalid');
    expect(codeOf('{"schema_version":2,"schema_version":2}')).toBe('destination_marker_invalid');
    expect(codeOf('[]')).toBe('destination_marker_invalid');
    expect(codeOf('\u00ff')).toBe('destination_marker_invalid');
  });

  it('regression: says the first fault and where it is, never a value', () => {
    expect(hintOf('{"hello":1}\n')).toBe("unknown key 'hello' at line 1, column 2");
    const good = Buffer.from(serializePending(marker)).toString('utf8');
    expect(hintOf(good.replace('"schema_version":2', '"schema_version":3'))).toMatch(
      /^schema_version at line 1, column \d+ is not 2$/,
    );
    expect(hintOf(good.replace('"a/z.md"', '"../z.md"'))).toMatch(
      /^claims\[1\]\.path at line 1, column \d+ is not a safe path in a bundle$/,
    );
    expect(hintOf('{"claims":[')).toMatch(/^not strict JSON at line 1, column \d+/);
  });
});
