import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_AGE, NOW, retailBundle, writeBundle } from '../src/migration/testing/bundles.js';
import { privateBuild, runNode } from './children.js';
import type { Benchmark } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const distRoot = join(here, '..');
const repoRoot = join(distRoot, '..');
const IN_PROCESS_RUNS = 30;

const spawnOk = (args: readonly string[]): string => runNode(args, 'scaffold benchmark process');

/**
 * A full default-mode scaffold (bind the evidence, plan, stage, seal,
 * verify, publish with the no-replace rename, normalize modes) of the four
 * retail models into a fresh BigQuery workspace, side by side with the
 * start of a bare `node -e 0`. Each operation gets a fresh copy of the
 * workspace, made untimed. The processes run a private copy of the build.
 */
export const scaffoldBenchmark: Benchmark = {
  name: 'scaffold',
  description:
    'sealkit scaffold, full default-mode run (bind -> publish) in a fresh workspace, beside node -e 0',
  runOptions: { warmupRuns: 2, rounds: 12, minSampleMs: 0 },
  prepare() {
    const base = privateBuild('scaffold');
    cpSync(join(repoRoot, 'bin'), join(base, 'bin'), { recursive: true });
    cpSync(join(repoRoot, 'package.json'), join(base, 'package.json'));
    const bin = join(base, 'bin', 'sealkit.js');
    const child = join(base, 'dist', 'bench', 'scaffold-child.js');
    // The template comes from the checkout's own CLI (the private build has no editions/),
    // outside both, which edition new counts as installations it never writes into.
    const templateBase = mkdtempSync(join(tmpdir(), 'sealkit-bench-template-'));
    const template = join(templateBase, 'template');
    spawnOk([join(repoRoot, 'bin', 'sealkit.js'), 'edition', 'new', '--edition', 'bigquery', template]);
    const evidence = writeBundle(join(base, 'evidence'), retailBundle({ destination: 'bigquery' }));
    let counter = 0;
    let workspace = '';
    const fresh = (): void => {
      counter += 1;
      workspace = join(base, `ws-${counter}`);
      cpSync(template, workspace, { recursive: true });
    };
    const cliArgs = (extra: readonly string[]): string[] => [
      bin,
      'scaffold',
      '--edition',
      'bigquery',
      '--workspace',
      workspace,
      '--source-id',
      'shop',
      '--mapping-file',
      evidence.mappingFile,
      '--inventory-file',
      evidence.dryRunFile,
      '--run-manifest',
      evidence.runManifestFile,
      '--source-binding-id',
      'synthetic_retail',
      '--max-evidence-age',
      '36500d',
      ...extra,
    ];
    const options = (): string =>
      JSON.stringify({
        edition: 'bigquery',
        workspace,
        sourceId: 'shop',
        mappingFile: evidence.mappingFile,
        inventoryFile: evidence.dryRunFile,
        runManifestFile: evidence.runManifestFile,
        sourceBindingId: 'synthetic_retail',
        maxEvidenceAge: MAX_AGE,
        now: NOW.toISOString(),
      });
    fresh();
    if (!spawnOk(cliArgs([])).includes('"status":"published"')) throw new Error('the CLI did not publish');
    return {
      workload:
        'the 4 retail tables of synthetic SQL -> BigQuery evidence: 6 files staged, sealed, verified, published',
      reference: 'node -e 0',
      variants: [
        { name: 'node -e 0', run: () => spawnOk(['-e', '0']) },
        // What every sealkit command pays before it runs: the CLI imports every domain.
        { name: 'sealkit --version (CLI start only)', run: () => spawnOk([bin, '--version']) },
        { name: 'sealkit scaffold (CLI process)', setup: fresh, run: () => spawnOk(cliArgs([])) },
        {
          name: 'sealkit scaffold --dry-run (CLI process)',
          setup: fresh,
          run: () => spawnOk(cliArgs(['--dry-run'])),
        },
        {
          name: 'node + scaffold library only (process)',
          setup: fresh,
          run: () => spawnOk([child, 'once', options()]),
        },
      ],
      notes: () => {
        fresh();
        const loop = JSON.parse(spawnOk([child, 'loop', options(), String(IN_PROCESS_RUNS), template])) as {
          medianMs: number;
          minMs: number;
        };
        return {
          'in-process scaffold() median ms (30 runs, fresh workspaces)': Number(loop.medianMs.toFixed(2)),
          'in-process scaffold() min ms': Number(loop.minMs.toFixed(2)),
          target: 'full default-mode run <= 5x node -e 0',
        };
      },
      dispose: () => {
        spawnSync('chmod', ['-R', 'u+rwx', base]);
        rmSync(base, { recursive: true, force: true });
        rmSync(templateBase, { recursive: true, force: true });
      },
    };
  },
};
