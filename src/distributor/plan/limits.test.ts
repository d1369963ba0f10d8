// Object limits of a destination are decided at planning: an output that one
// S3 object cannot hold, or whose key is longer than S3 allows, refuses that
// bundle at that destination before anything is written anywhere.
import { describe, expect, it } from 'vitest';
import type { Sha256Prefixed } from '../../core/digest/index.js';
import type { ObjectLimits } from '../backend.js';
import type { BundleDir, BundlePath, Instant, SourceManifest } from '../model/types.js';
import { planRun } from './plan-run.js';

const sha = (c: string) => `sha256:${c.repeat(64)}` as Sha256Prefixed;
const S3_LIMITS: ObjectLimits = { max_object_bytes: 5 * 1024 ** 3, max_key_bytes: 1024, key_prefix_bytes: 8 };

function plan(files: readonly { path: string; size: number }[], limits: ObjectLimits | undefined) {
  const manifest: SourceManifest = {
    schema_version: 1,
    id: 'big',
    digest: sha('1'),
    created: '2026-05-30T11:10:00Z' as Instant,
    files: files.map((file) => ({ path: file.path as BundlePath, sha256: sha('2'), size: file.size })),
  };
  return planRun([
    {
      id: 'p',
      destinations: [
        { id: 'archive', kind: 's3', outputs: { source: true, html: false } },
        { id: 'site', kind: 'local', outputs: { source: true, html: false } },
      ],
      limits: [limits, undefined],
      bundles: [
        {
          dir: 'daily' as BundleDir,
          manifest,
          pages: [],
          views: [
            { kind: 'empty', residue: [] },
            { kind: 'empty', residue: [] },
          ],
        },
      ],
      failures: [],
    },
  ]);
}

const actions = (result: ReturnType<typeof plan>) =>
  result.items.map((item) => [item.destination_id, 'reason_code' in item ? item.reason_code : item.outcome]);

describe('object limits at planning', () => {
  it('regression: a file over 5 GiB is refused output_too_large at the S3 destination only, before any write', () => {
    const result = plan([{ path: 'huge.bin', size: 5 * 1024 ** 3 + 1 }], S3_LIMITS);
    expect(actions(result)).toEqual([
      ['archive', 'output_too_large'],
      ['site', 'published'],
    ]);
    expect(result.aborted).toBe(false);
    // The refusal names the output, for the report to say which file.
    expect(result.items[0]).toMatchObject({ output_path: 'huge.bin' });
    expect(actions(plan([{ path: 'huge.bin', size: 5 * 1024 ** 3 }], S3_LIMITS))[0]).toEqual([
      'archive',
      'published',
    ]);
  });

  it('regression: a key over 1,024 bytes (prefix, bundle directory and path) is refused output_key_too_long', () => {
    // 8 (prefix and '/') + 'daily/' (6) + path = 1024 is the longest allowed.
    const longest = `${'a'.repeat(200)}/${'b'.repeat(200)}/${'c'.repeat(200)}/${'d'.repeat(200)}/${'e'.repeat(206)}`;
    expect(8 + 6 + longest.length).toBe(1024);
    expect(actions(plan([{ path: longest, size: 1 }], S3_LIMITS))[0]).toEqual(['archive', 'published']);
    expect(actions(plan([{ path: `${longest}x`, size: 1 }], S3_LIMITS))[0]).toEqual([
      'archive',
      'output_key_too_long',
    ]);
    // Multi-byte names count in UTF-8 bytes.
    const wide = `${'é'.repeat(127)}/${'é'.repeat(127)}/${'é'.repeat(127)}/${'é'.repeat(127)}/x`;
    expect(actions(plan([{ path: wide, size: 1 }], S3_LIMITS))[0]).toEqual([
      'archive',
      'output_key_too_long',
    ]);
  });

  it('a destination without limits (local) plans the same bundle as usual', () => {
    expect(actions(plan([{ path: 'huge.bin', size: 6 * 1024 ** 3 }], undefined))).toEqual([
      ['archive', 'published'],
      ['site', 'published'],
    ]);
  });
});
