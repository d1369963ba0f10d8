import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refuseFs } from '../core/fs/index.js';
import { refuseJson } from '../core/json/index.js';
import { ADMISSION_CODE_FOR, readPrivateEvidenceJson } from './private-json.js';
import { refuseEvidence } from './refusals.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('read_private_json for the dry run and the run manifest', () => {
  it('places every core private-file and JSON code under exactly one admission code', () => {
    const core = [...refuseFs.codes, ...refuseJson.codes].sort();
    expect(Object.keys(ADMISSION_CODE_FOR).sort()).toEqual(core);
    for (const code of Object.values(ADMISSION_CODE_FOR)) {
      expect(code).toMatch(/^scaffold_input_(missing|not_private|not_regular|oversized|malformed)$/);
      expect(refuseEvidence.codes).toContain(code);
    }
    // Core's own category decides oversized versus malformed for JSON bounds.
    for (const code of refuseJson.codes.filter((c) => c.startsWith('json_'))) {
      expect(ADMISSION_CODE_FOR[code]).toBe(
        refuseJson.table[code].category === 'oversized'
          ? 'scaffold_input_oversized'
          : 'scaffold_input_malformed',
      );
    }
  });

  it('reads an owner-only JSON object and refuses deep nesting as oversized, with the role', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sealkit-private-evidence-'));
    roots.push(dir);
    writeFileSync(join(dir, 'ok.json'), '{"mode":"dry_run"}', { mode: 0o600 });
    expect(readPrivateEvidenceJson(join(dir, 'ok.json'), 'dry_run')).toEqual({ mode: 'dry_run' });
    writeFileSync(join(dir, 'deep.json'), `{"a":${'['.repeat(100)}${']'.repeat(100)}}`, { mode: 0o600 });
    expect(() => readPrivateEvidenceJson(join(dir, 'deep.json'), 'run_manifest')).toThrow(
      expect.objectContaining({ code: 'scaffold_input_oversized', role: 'run_manifest' }),
    );
    writeFileSync(join(dir, 'string.json'), '"text"', { mode: 0o600 });
    expect(() => readPrivateEvidenceJson(join(dir, 'string.json'), 'dry_run')).toThrow(
      expect.objectContaining({ code: 'scaffold_input_malformed', role: 'dry_run' }),
    );
  });
});
