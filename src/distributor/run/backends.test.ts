import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeTree, makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import type { BackendFactory } from '../backend.js';
import { backendRegistry } from '../backends/registry.js';
import type { LocalDestinationConfig } from '../config/types.js';
import { distributeRun } from './run.js';

// Every destination kind is built by its factory in one registry
// (docs/distributor.md#code-layout); `backends` replaces a kind's factory.

let work: string;
let config: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-backends-'));
  const source = join(work, 'src');
  mkdirSync(source);
  mkdirSync(join(work, 'a'));
  mkdirSync(join(work, 'b'));
  makeBundle(source, 'weather/b1', [{ path: 'summary.txt', content: 'sunny\n' }], {
    id: 'weather.b1',
    created: '2026-05-30T11:10:00Z',
  });
  config = writeConfig(work, [
    {
      id: 'weather',
      source,
      destinations: [
        { id: 'a', root: join(work, 'a') },
        { id: 'b', root: join(work, 'b') },
      ],
    },
  ]);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const outcomes = (report: Awaited<ReturnType<typeof distributeRun>>) =>
  report.outcomes.map((o) => [o.destination_id, o.outcome, o.reason_code ?? '']);

describe('backends by destination kind', () => {
  it('builds each local destination with the factory the backends option gives its kind', async () => {
    const builtin = backendRegistry();
    const built: string[] = [];
    const local: BackendFactory<LocalDestinationConfig> = (destination, context) => {
      built.push(destination.id);
      return builtin.local(destination, context);
    };
    const report = await distributeRun({ configPath: config, backends: { local } });
    expect(built).toEqual(['a', 'b']);
    expect(outcomes(report)).toEqual([
      ['a', 'published', ''],
      ['b', 'published', ''],
    ]);
  });

  it('refuses a destination whose factory fails with backend_unavailable, and still publishes the others', async () => {
    const builtin = backendRegistry();
    const local: BackendFactory<LocalDestinationConfig> = (destination, context) => {
      if (destination.id === 'a') throw new Error('no backend for a');
      return builtin.local(destination, context);
    };
    const report = await distributeRun({ configPath: config, backends: { local } });
    expect(outcomes(report)).toEqual([
      ['a', 'refused', 'backend_unavailable'],
      ['b', 'published', ''],
    ]);
    expect(describeTree(join(work, 'a'))).toEqual({});
  });
});
