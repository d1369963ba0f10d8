import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { snapshotTree } from '../../../test/helpers/edition-trees.js';
import { type Sha256Hex, sha256Hex } from '../../core/digest/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { editionsRoot } from '../installation.js';
import { applyWorkspacePlan } from './apply.js';
import { planWorkspace } from './plan.js';
import { isSkippedInWorkspace, readEditionSource } from './source.js';
import { newWorkspace } from './workspace.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-workspace-'));
});
afterEach(() => {
  chmodSync(dir, 0o700);
  rmSync(dir, { recursive: true, force: true });
});

/** A minimal sealkit installation of our own, so its edition can be broken on purpose. */
function fakeInstallation(): string {
  const root = join(dir, 'install');
  mkdirSync(root);
  writeFileSync(join(root, 'package.json'), '{"name":"sealkit"}');
  cpSync(join(REPO_ROOT, 'editions'), join(root, 'editions'), { recursive: true });
  return root;
}

describe('the workspace plan', () => {
  it('is the same bytes on every run and leaves out every .ci folder', () => {
    const first = planWorkspace(readEditionSource(editionsRoot(), 'snowflake'));
    const second = planWorkspace(readEditionSource(editionsRoot(), 'snowflake'));
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
    expect(first.skipped).toEqual(['kit/.ci']);
    expect(first.projectDir).toBe('kit');
    expect(first.files.some((file) => isSkippedInWorkspace(file.path))).toBe(false);
    expect(first.files.map((file) => file.path)).toContain('docs/migration.md');
    expect(isSkippedInWorkspace('.ci')).toBe(true);
    expect(isSkippedInWorkspace('kit/.ci/profiles.yml')).toBe(true);
    expect(isSkippedInWorkspace('kit/.cix')).toBe(false);
  });
});

describe('a failed copy leaves nothing at DEST', () => {
  it('removes its staging folder when the staged bytes do not match the plan (workspace_verify_failed)', async () => {
    const source = readEditionSource(editionsRoot(), 'bigquery');
    const plan = planWorkspace(source);
    const tampered = {
      ...plan,
      files: plan.files.map((file, index) =>
        index === plan.files.length - 1 ? { ...file, sha256: sha256Hex('not this file') as Sha256Hex } : file,
      ),
    };
    const parent = join(dir, 'parent');
    mkdirSync(parent);
    const error = await applyWorkspacePlan(tampered, source, join(parent, 'ws'), REPO_ROOT).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).code).toBe('workspace_verify_failed');
    expect(readdirSync(parent)).toEqual([]);
  });

  it('refuses to publish into a parent it cannot write (workspace_write_failed), leaving it unchanged', async () => {
    const parent = join(dir, 'readonly');
    mkdirSync(parent);
    chmodSync(parent, 0o500);
    await expect(newWorkspace({ edition: 'bigquery', dest: join(parent, 'ws') })).rejects.toThrow(
      expect.objectContaining({ code: 'workspace_write_failed' }),
    );
    expect(readdirSync(parent)).toEqual([]);
  });

  it('refuses an edition that holds a symbolic link, before writing anything', async () => {
    const root = fakeInstallation();
    symlinkSync('/etc/passwd', join(root, 'editions', 'Bigquery', 'models', 'link.sql'));
    const before = snapshotTree(root);
    await expect(
      newWorkspace({ edition: 'bigquery', dest: join(dir, 'ws'), installationRoot: root }),
    ).rejects.toThrow(expect.objectContaining({ code: 'edition_source_invalid' }));
    expect(readdirSync(dir)).toEqual(['install']);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('refuses an edition name it does not ship (edition_unknown), before reading anything', async () => {
    await expect(newWorkspace({ edition: 'postgres' as 'bigquery', dest: join(dir, 'ws') })).rejects.toThrow(
      expect.objectContaining({ code: 'edition_unknown' }),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses an installation without the edition (edition_source_missing)', async () => {
    const root = fakeInstallation();
    rmSync(join(root, 'editions', 'Snowflake'), { recursive: true });
    await expect(
      newWorkspace({ edition: 'snowflake', dest: join(dir, 'ws'), installationRoot: root }),
    ).rejects.toThrow(expect.objectContaining({ code: 'edition_source_missing' }));
    expect(readdirSync(dir)).toEqual(['install']);
  });

  it('copies from the installation it is given, and keeps DEST out of that installation', async () => {
    const root = fakeInstallation();
    const created = await newWorkspace({
      edition: 'bigquery',
      dest: join(dir, 'ws'),
      installationRoot: root,
    });
    expect(created.status).toBe('created');
    await expect(
      newWorkspace({ edition: 'bigquery', dest: join(root, 'ws'), installationRoot: root }),
    ).rejects.toThrow(expect.objectContaining({ code: 'destination_inside_installation' }));
    expect(readdirSync(dir).sort()).toEqual(['install', 'ws']);
  });
});
