import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeProjection } from '../canonical/decode.js';
import { copyExample } from '../fixtures/resources.js';
import { openContractProject } from '../project/open.js';
import { interpretContractSchemas } from './schema-compilation.js';

describe('contract schema checks once the CLI turns compilation off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sealkit-schema-compilation-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // zod compiles a schema with `new Function` at its first check; count those.
  it('validate and decode every document without compiling a schema', async () => {
    const original = globalThis.Function;
    let compiled = 0;
    globalThis.Function = new Proxy(original, {
      construct(target, args) {
        compiled += 1;
        return Reflect.construct(target, args);
      },
    });
    try {
      interpretContractSchemas();
      copyExample(join(dir, 'retail'));
      const project = await openContractProject(join(dir, 'retail'));
      expect(project.valid).toBe(true);
      const decoded = project.outcomes.flatMap((outcome) =>
        outcome.id !== null && outcome.version !== null && outcome.kind !== 'Dashboard'
          ? [decodeProjection(project.project(outcome.id).bytes)]
          : [],
      );
      expect(decoded.length).toBe(6);
    } finally {
      globalThis.Function = original;
    }
    expect(compiled).toBe(0);
  });
});
