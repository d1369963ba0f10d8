import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { Refusal } from '../../core/refusal/index.js';
import { verifyBundle } from '../api/verify.js';
import { bundleDigest } from './bundle-digest.js';

/**
 * The Python producer code in docs/distributor.md ("Bundle digest, byte for
 * byte") is taken from the page itself and run by python3 as a producer
 * would: it hashes the files, computes the bundle digest and writes
 * manifest.json; sealkit must then verify the bundle. The names hold what
 * encoders escape differently: `&`, `<`, `>`, quotes, non-ASCII letters,
 * characters beyond U+FFFF and U+2028. The same driver with Python's default
 * `json.dumps` settings must be refused, so the settings the page shows are
 * what makes it pass.
 */
const DOCS = readFileSync(join(REPO_ROOT, 'docs', 'distributor.md'), 'utf8');

function snippet(language: string): string {
  const marker = `<!-- producer-snippet:${language} -->\n\`\`\`${language}\n`;
  const start = DOCS.indexOf(marker);
  if (start === -1) throw new Error(`docs/distributor.md has no ${language} producer snippet`);
  const end = DOCS.indexOf('\n```\n', start + marker.length);
  return DOCS.slice(start + marker.length, end + 1);
}

const DRIVER = `
import hashlib, json, os, sys

root, settings = sys.argv[1], sys.argv[2]
paths = json.loads(sys.stdin.read())
files = []
for path in paths:
    with open(os.path.join(root, path), "rb") as f:
        data = f.read()
    files.append({"path": path, "sha256": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)})
if settings == "documented":
    digest = bundle_digest(files)
else:
    digest = "sha256:" + hashlib.sha256(json.dumps(files).encode("utf-8")).hexdigest()
manifest = {"schema_version": 1, "id": "py.producer", "digest": digest, "created": "2026-05-30T11:10:00Z", "files": files}
with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
    json.dump(manifest, f, ensure_ascii=False, indent=2)
print(digest)
`;

/** In manifest order, deliberately not sorted. */
const PATHS = [
  'report.md',
  'R&D <draft> "v2" it\'s.md',
  'café/naïve résumé.csv',
  'charts/📊 sales 𝄞.svg',
  '日本語/データ.txt',
  'line\u2028separator.txt',
  'a>b&c.txt',
];

const work = mkdtempSync(join(tmpdir(), 'sealkit-snippets-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function producerBundle(name: string): string {
  const root = join(work, name);
  for (const [index, path] of PATHS.entries()) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `file ${index}: ${path}\n`);
  }
  return root;
}

function runPython(root: string, settings: 'documented' | 'default') {
  return spawnSync('python3', ['-c', `${snippet('python')}\n${DRIVER}`, root, settings], {
    input: JSON.stringify(PATHS),
    encoding: 'utf8',
    env: { ...process.env, PYTHONUTF8: '1' },
  });
}

describe('the producer snippets in docs/distributor.md', () => {
  it('Python: the documented block writes a manifest sealkit verifies, on names encoders disagree on', () => {
    const root = producerBundle('python');
    const python = runPython(root, 'documented');
    expect(python.stderr).toBe('');
    expect(python.status).toBe(0);
    const verified = verifyBundle(root);
    expect(verified.manifest.files.map((file) => file.path)).toEqual(PATHS);
    expect(verified.manifest.digest).toBe(python.stdout.trim());
    expect(bundleDigest(verified.manifest.files)).toBe(python.stdout.trim());
    // The manifest Python wrote keeps the names as UTF-8, not as \u escapes.
    expect(readFileSync(join(root, 'manifest.json'), 'utf8')).toContain('📊 sales 𝄞');
  });

  it("control: Python's default json.dumps settings give another digest, and verify refuses it", () => {
    const root = producerBundle('python-default');
    const python = runPython(root, 'default');
    expect(python.status).toBe(0);
    let refusal: Refusal | undefined;
    try {
      verifyBundle(root);
    } catch (error: unknown) {
      if (error instanceof Refusal) refusal = error;
    }
    expect(refusal?.code).toBe('bundle_digest_mismatch');
  });

  it('Go: the snippet is on the page and says it was not run (no Go toolchain here)', () => {
    const go = snippet('go');
    expect(go).toContain('func BundleDigest(files []File) string');
    expect(DOCS).toContain(
      "It has not\nbeen run by sealkit's tests:** the machines they run on have no Go\ntoolchain.",
    );
  });
});
