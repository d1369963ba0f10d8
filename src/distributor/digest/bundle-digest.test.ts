import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeBundle } from '../../../test/helpers/distributor-fixtures.js';
import { verifyBundle } from '../api/verify.js';
import { bundleDigest, bundleDigestPayload } from './bundle-digest.js';

/**
 * The reference bundle: three files whose names exercise JSON escaping
 * (quote, non-ASCII, U+2028) with the digests below, written down once and
 * checked against python3 computing them from the files on disk.
 */
const REFERENCE_FILES = [
  { path: 'report.md', content: '# Weather for Brentwood\n\nSunny, 21 °C.\n' },
  { path: 'summary.txt', content: 'sunny\n' },
  { path: 'data/"quoted" café\u2028.csv', content: 'day,temp\n2026-05-30,21\n' },
];
const REFERENCE_RECORDS = [
  {
    path: 'report.md',
    sha256: 'sha256:f94579172a5ffc8c5baf5eea906fa9e1d42c0b2f2c6b4f76965a0e3c431bec9d',
    size: 40,
  },
  {
    path: 'summary.txt',
    sha256: 'sha256:e80f15a5965af266d42b35609c10e2b5c8fa71040e65bb4c4def6bc9bca27a1c',
    size: 6,
  },
  {
    path: 'data/"quoted" café\u2028.csv',
    sha256: 'sha256:d1f4abc6f79e56359f301a2eccb57341d46e631b69f7d1bbfec47bcfd96ae611',
    size: 23,
  },
];
const REFERENCE_DIGEST = 'sha256:a868272dcaf01ac70824c0d1eea12f5bafa0fa00fdaab5f79d9cae1d82bf0416';

const work = mkdtempSync(join(tmpdir(), 'sealkit-digest-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `
import hashlib, json, sys, os
root = sys.argv[1]
with open(os.path.join(root, "manifest.json"), "rb") as f:
    manifest = json.load(f)
records = []
for entry in manifest["files"]:
    with open(os.path.join(root, entry["path"]), "rb") as f:
        data = f.read()
    records.append({"path": entry["path"], "sha256": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)})
payload = json.dumps(records, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
print(json.dumps({"records": records, "payload": payload.decode("utf-8"), "digest": "sha256:" + hashlib.sha256(payload).hexdigest()}))
`;

describe('bundle digest', () => {
  it('encodes the canonical payload exactly: field order path, sha256, size; no spaces; manifest order', () => {
    const payload = bundleDigestPayload([
      { path: 'b.txt', sha256: `sha256:${'1'.repeat(64)}`, size: 234 },
      { path: 'a "q".md', sha256: `sha256:${'2'.repeat(64)}`, size: 0 },
    ]);
    expect(payload).toBe(
      `[{"path":"b.txt","sha256":"sha256:${'1'.repeat(64)}","size":234},{"path":"a \\"q\\".md","sha256":"sha256:${'2'.repeat(64)}","size":0}]`,
    );
  });

  it('matches the reference fixture and an independent python3 computation', () => {
    const bundle = makeBundle(work, 'ref', REFERENCE_FILES, {
      id: 'reference',
      created: '2026-05-30T11:10:00Z',
    });
    const verified = verifyBundle(bundle);
    const python = spawnSync('python3', ['-c', PYTHON, bundle], { encoding: 'utf8' });
    expect(python.status).toBe(0);
    const oracle = JSON.parse(python.stdout) as {
      records: { path: string; sha256: string; size: number }[];
      payload: string;
      digest: string;
    };
    expect(verified.manifest.files).toEqual(oracle.records);
    expect(bundleDigestPayload(verified.manifest.files)).toBe(oracle.payload);
    expect(bundleDigest(verified.manifest.files)).toBe(oracle.digest);
    expect(verified.manifest.digest).toBe(oracle.digest);
    expect(verified.manifest.files).toEqual(REFERENCE_RECORDS);
    expect(verified.manifest.digest).toBe(REFERENCE_DIGEST);
  });
});
