import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import type { DestinationBackend, ObjectLimits, Step } from '../backend.js';
import { backendRegistry } from '../backends/registry.js';
import { distributeRun } from './run.js';

/*
 * An output larger than a destination can store, or whose key is longer
 * than it allows, is refused at planning from its manifest. When that destination is the only one to receive the
 * bundle, the run must not copy the bundle first (a 5 GiB file for S3 used
 * to be hashed into $TMPDIR in full before its refusal), and the refusal
 * names the output. A local destination with small limits stands in for S3
 * here, so the copy it would make is seen by the run's own fault hook.
 */
const base = mkdtempSync(join(tmpdir(), 'sealkit-limits-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const SMALL: ObjectLimits = { max_object_bytes: 1000, max_key_bytes: 1024, key_prefix_bytes: 0 };
const SHORT_KEYS: ObjectLimits = { max_object_bytes: 1_000_000, max_key_bytes: 48, key_prefix_bytes: 8 };

/** The local backend, reporting `limits` as an object store would. */
function limited(backend: DestinationBackend, limits: ObjectLimits): DestinationBackend {
  return new Proxy(backend, {
    get(target, property) {
      if (property === 'limits') return limits;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('an output over the destination limit', () => {
  it('regression: is refused from its manifest size, without copying the bundle, naming the output', async () => {
    const source = join(base, 'src');
    makeBundle(
      source,
      'daily',
      [
        { path: 'big.bin', content: Buffer.alloc(5000, 7) },
        { path: 'notes.txt', content: Buffer.from('small\n') },
      ],
      { id: 'daily', created: '2026-05-01T00:00:00Z' },
    );
    const root = join(base, 'dest');
    mkdirSync(root);
    const config = writeConfig(base, [
      { id: 'p', source, destinations: [{ id: 'store', root, source: true, html: false }] },
    ]);
    const builtIn = backendRegistry();
    const steps: Step[] = [];
    const report = await distributeRun({
      configPath: config,
      backends: { local: (destination, context) => limited(builtIn.local(destination, context), SMALL) },
      beforeStep: (step) => steps.push(step),
    });
    expect(report.outcomes.map((o) => [o.outcome, o.reason_code, o.output_path])).toEqual([
      ['refused', 'output_too_large', 'big.bin'],
    ]);
    expect(report.outcomes[0]?.refusal?.hint).toContain("output 'big.bin' is larger than one object");
    // No snapshot file was made for a bundle no destination can take (the
    // work area's own folder is made when the destination is locked).
    expect(steps.filter((step) => step.kind === 'create')).toEqual([]);
    expect(readdirSync(root).filter((name) => name !== '.distributor.work')).toEqual([]);
  });

  it('regression: a key longer than the destination allows is refused without copying the bundle', async () => {
    const source = join(base, 'src-keys');
    const long = `reports/${'q'.repeat(30)}.txt`;
    makeBundle(source, 'daily', [{ path: long, content: Buffer.from('a long name\n') }], {
      id: 'daily',
      created: '2026-05-01T00:00:00Z',
    });
    const root = join(base, 'dest-keys');
    mkdirSync(root);
    mkdirSync(join(base, 'keys'));
    const config = writeConfig(join(base, 'keys'), [
      { id: 'p', source, destinations: [{ id: 'store', root, source: true, html: false }] },
    ]);
    const builtIn = backendRegistry();
    const steps: Step[] = [];
    const report = await distributeRun({
      configPath: config,
      backends: { local: (destination, context) => limited(builtIn.local(destination, context), SHORT_KEYS) },
      beforeStep: (step) => steps.push(step),
    });
    expect(report.outcomes.map((o) => [o.outcome, o.reason_code, o.output_path])).toEqual([
      ['refused', 'output_key_too_long', long],
    ]);
    expect(steps.filter((step) => step.kind === 'create')).toEqual([]);
    expect(readdirSync(root).filter((name) => name !== '.distributor.work')).toEqual([]);
  });
});
