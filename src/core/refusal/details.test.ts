import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineRefusals, type Refusal, refuseAll, type WithDetails } from './refusal.js';

// The compile-time half of docs/refusals.md#details: every `@ts-expect-error`
// below is checked by `tsc --noEmit` (npm test), which fails if the line
// compiles after all. The runtime half follows in the same file.

type DemoCode = 'demo_position' | 'demo_optional' | 'demo_rows' | 'demo_plain';
type DemoDetails = WithDetails<
  DemoCode,
  {
    demo_position: { readonly position: number; readonly names: readonly string[] };
    demo_optional: { readonly reason: 'a' | 'b' } | undefined;
    demo_rows: { readonly rows: readonly string[] };
  }
>;

const refuseDemo = defineRefusals<DemoCode, DemoDetails>({
  demo_position: { category: 'malformed', message: 'the demo input is malformed at a position' },
  demo_optional: { category: 'missing', message: 'the demo input is missing' },
  demo_rows: { category: 'mismatched', message: 'the demo rows do not match', printDetails: true },
  demo_plain: { category: 'conflict', message: 'the demo input conflicts' },
});

function typeChecks(): void {
  // A code with details must be given them.
  // @ts-expect-error details are required for demo_position
  refuseDemo('demo_position');
  // @ts-expect-error a context without details is not enough
  refuseDemo('demo_position', { role: 'demo' });
  // @ts-expect-error the details must have the code's type
  refuseDemo('demo_position', { details: { position: 'three', names: [] } });
  refuseDemo('demo_position', { details: { position: 3, names: ['x'] } });

  // A code without details cannot be given any.
  // @ts-expect-error demo_plain has no details
  refuseDemo('demo_plain', { details: { position: 3 } });
  refuseDemo('demo_plain');
  refuseDemo('demo_plain', { role: 'demo', field: 'tables[].cast' });

  // Optional details may be left out.
  refuseDemo('demo_optional');
  refuseDemo('demo_optional', { details: { reason: 'a' } });

  // @ts-expect-error a details map must name every code (demo_plain is missing)
  defineRefusals<DemoCode, { demo_position: undefined; demo_optional: undefined; demo_rows: undefined }>;
  // @ts-expect-error WithDetails refuses a key that is not a code
  const misspelt: WithDetails<DemoCode, { demo_postion: { readonly position: number } }> | undefined =
    undefined;
  void misspelt;

  defineRefusals<'plain_only'>({
    // @ts-expect-error printDetails only on a code that has details
    plain_only: { category: 'missing', message: 'the plain demo is missing', printDetails: true },
  });

  const refusal: unknown = refuseDemo('demo_position', { details: { position: 1, names: [] } });
  if (refuseDemo.is(refusal, 'demo_position')) {
    // @ts-expect-error details are readonly
    refusal.details.position = 2;
    // @ts-expect-error details are readonly all the way down
    refusal.details.names.push('y');
  }
  if (refuseDemo.is(refusal) && refusal.code === 'demo_plain') {
    expectTypeOf(refusal.details).toEqualTypeOf<undefined>();
  }
  // Existing tables, no details map: unchanged calls.
  const plain = defineRefusals<'old_code'>({
    old_code: { category: 'missing', message: 'the old demo is missing' },
  });
  const old: Refusal<'old_code'> = plain('old_code', { role: 'demo' });
  expectTypeOf(old.details).toEqualTypeOf<undefined | object>();
}
void typeChecks;

describe('refusal details', () => {
  it('is() narrows to the code and its details type', () => {
    const thrown: unknown = refuseDemo('demo_position', { details: { position: 14, names: ['a'] } });
    expect(refuseDemo.is(thrown, 'demo_position')).toBe(true);
    expect(refuseDemo.is(thrown, 'demo_plain')).toBe(false);
    if (!refuseDemo.is(thrown, 'demo_position')) throw new Error('expected demo_position');
    expectTypeOf(thrown.details).toEqualTypeOf<{
      readonly position: number;
      readonly names: readonly string[];
    }>();
    expect(thrown.details.position).toBe(14);
    if (refuseDemo.is(thrown) && thrown.code === 'demo_position') {
      expect(thrown.details.names).toEqual(['a']);
    }
  });

  it('are a frozen copy: the caller can neither change them nor change them later', () => {
    const names = ['a'];
    const refusal = refuseDemo('demo_position', { details: { position: 1, names } });
    names.push('b');
    expect(refusal.details.names).toEqual(['a']);
    expect(Object.isFrozen(refusal.details)).toBe(true);
    expect(Object.isFrozen(refusal.details.names)).toBe(true);
  });

  it('survive at(), redacted(), withOthers() and refuseAll()', () => {
    const refusal = refuseDemo('demo_position', {
      location: { path: 'a.yaml', line: 2 },
      details: { position: 7, names: [] },
    });
    const other = refuseDemo('demo_plain');
    for (const copy of [
      refusal.at({ path: 'b.yaml' }),
      refusal.redacted(),
      refusal.withOthers([other], 0),
      refuseAll([refusal, other]),
    ]) {
      expect(copy.code).toBe('demo_position');
      expect(copy.details).toEqual({ position: 7, names: [] });
      expect(refuseDemo.is(copy, 'demo_position')).toBe(true);
    }
  });

  it('are not printed unless the table marks them printable', () => {
    const hidden = refuseDemo('demo_position', {
      role: 'demo',
      details: { position: 9, names: ['SENTINEL'] },
    });
    expect(hidden.toJSON()).toEqual({
      reason_code: 'demo_position',
      category: 'malformed',
      message: 'the demo input is malformed at a position',
      role: 'demo',
    });
    expect(JSON.stringify(hidden)).not.toContain('SENTINEL');
    const printed = refuseDemo('demo_rows', { details: { rows: ['1,2'] } });
    expect(printed.toJSON()).toEqual({
      reason_code: 'demo_rows',
      category: 'mismatched',
      message: 'the demo rows do not match',
      details: { rows: ['1,2'] },
    });
    expect(printed.at({ path: 'x.csv' }).toJSON().details).toEqual({ rows: ['1,2'] });
  });

  it('are never printed once redacted, even where printable (private domains)', () => {
    const redacted = refuseDemo('demo_rows', { details: { rows: ['SENTINEL'] } }).redacted();
    expect(redacted.details).toEqual({ rows: ['SENTINEL'] });
    expect(JSON.stringify(redacted)).not.toContain('SENTINEL');
    expect(JSON.stringify(redacted.at({ path: 'x' }))).not.toContain('SENTINEL');
  });

  it('is() refuses a refusal of the same code made from another table', () => {
    const lookalike = defineRefusals<'demo_position'>({
      demo_position: { category: 'malformed', message: 'the demo input is malformed at a position' },
    });
    expect(refuseDemo.is(lookalike('demo_position'), 'demo_position')).toBe(false);
    expect(refuseDemo.is(new Error('demo_position'))).toBe(false);
  });
});
