import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStrict } from '../../core/json/index.js';
import type { SourceResource } from '../authoring/schemas/resource.js';
import { validateResource } from '../authoring/validate.js';
import { canonicalizeProjection } from '../canonical/canonical.js';
import { decodeProjection } from '../canonical/decode.js';
import { baseProject, filesOf, source } from '../fixtures/resources.js';
import { ContractProject } from '../project/contract-project.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { constructProjection } from './construct.js';
import { type ProjectionView, SealedProjection } from './sealed.js';

let parser: SqlParser;
let project: ContractProject;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
  project = await ContractProject.fromFiles(filesOf(baseProject()), parser);
});
afterAll(() => parser.close());

const notSealed = expect.objectContaining({ code: 'contract_not_sealed' });

describe('sealing cannot be bypassed', () => {
  it('canonicalizes a sealed projection', () => {
    const canonical = canonicalizeProjection(project.seal('t.model.facts'));
    expect(canonical.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(canonical.id).toBe('t.model.facts');
  });

  it('refuses a read view, at compile time and at run time', () => {
    const view: ProjectionView = project.seal('t.source.orders').view();
    // @ts-expect-error a read view is not a SealedProjection
    expect(() => canonicalizeProjection(view)).toThrow(notSealed);
  });

  it('refuses a decoded projection: JSON decoding never yields a sealed input', () => {
    const bytes = canonicalizeProjection(project.seal('t.source.orders')).bytes;
    const decoded = decodeProjection(bytes);
    // @ts-expect-error a decoded view is not a SealedProjection
    expect(() => canonicalizeProjection(decoded)).toThrow(notSealed);
    expect(() => canonicalizeProjection(parseStrict(bytes) as never)).toThrow(notSealed);
  });

  it('refuses objects made to look sealed', () => {
    const sealed = project.seal('t.source.orders');
    const forged = Object.create(SealedProjection.prototype) as SealedProjection;
    const proxy = new Proxy(sealed, {});
    const spread = { ...sealed } as unknown as SealedProjection;
    const cloned = structuredClone(sealed) as SealedProjection;
    for (const value of [forged, proxy, spread, cloned, null, undefined, {}, 'x']) {
      expect(() => canonicalizeProjection(value as SealedProjection)).toThrow(notSealed);
    }
  });

  it('has no public constructor', () => {
    // @ts-expect-error the constructor is private
    expect(() => new SealedProjection({})).toThrow(notSealed);
    // @ts-expect-error …and guarded at run time, for callers without types
    expect(() => new SealedProjection(Symbol('SealedProjection'), {})).toThrow(notSealed);
  });

  it('seals only resources validated by the schemas', () => {
    const validated = validateResource(source());
    if (validated.kind !== 'Source') throw new Error('kind');
    const built = { content: { fields: [] }, dependencies: [] };
    expect(constructProjection(validated, built, undefined).id).toBe('t.source.orders');
    const lookalike = JSON.parse(JSON.stringify(validated)) as SourceResource;
    // @ts-expect-error an unvalidated resource does not type-check…
    expect(() => constructProjection(lookalike, built, undefined)).toThrow(
      expect.objectContaining({ code: 'contract_not_validated' }),
    );
    // …and a copy forced through the type system is refused at run time.
    expect(() => constructProjection({ ...validated }, built, undefined)).toThrow(
      expect.objectContaining({ code: 'contract_not_validated' }),
    );
  });

  it('freezes the sealed payload: a view cannot change what gets canonicalized', () => {
    const sealed = project.seal('t.model.facts');
    const before = canonicalizeProjection(sealed).digest;
    const view = sealed.view() as unknown as { content: { fields: { name: string }[] } };
    expect(Object.isFrozen(view)).toBe(true);
    expect(() => {
      (view.content.fields[0] as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect(canonicalizeProjection(sealed).digest).toBe(before);
    expect(Object.isFrozen(sealed)).toBe(true);
  });
});
