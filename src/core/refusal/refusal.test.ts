import { describe, expect, it } from 'vitest';
import { guardRefusals, guardRefusalsAsync } from './guard.js';
import { defineRefusals, Refusal, type RefusalTable, refuseAll } from './refusal.js';

type DemoCode = 'demo_missing' | 'demo_malformed';
const table: RefusalTable<DemoCode> = {
  demo_missing: { category: 'missing', message: 'the demo artifact is missing' },
  demo_malformed: { category: 'malformed', message: 'the demo artifact is malformed' },
};
const refuseDemo = defineRefusals(table);

describe('Refusal', () => {
  it('carries the fixed message of its code, never caller text', () => {
    const refusal = refuseDemo('demo_missing', { role: 'mapping', field: 'tables[].cast' });
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal.message).toBe('the demo artifact is missing');
    expect(refusal.toJSON()).toEqual({
      reason_code: 'demo_missing',
      category: 'missing',
      message: 'the demo artifact is missing',
      role: 'mapping',
      field: 'tables[].cast',
    });
  });

  it('drops a field path or role that is not of the allowlisted shape', () => {
    const refusal = refuseDemo('demo_malformed', { role: 'Secret Role', field: 'tables.customer name' });
    expect(refusal.role).toBeUndefined();
    expect(refusal.field).toBeUndefined();
    expect(JSON.stringify(refusal.toJSON())).not.toContain('customer');
  });

  it('carries where the fault is and a hint, for the located domains', () => {
    const refusal = refuseDemo('demo_malformed', {
      location: { path: 'retail/sources/orders.yaml', line: 14, column: 5, pointer: 'fields[3].nulable' },
      hint: "did you mean 'nullable'?",
    });
    expect(refusal.toJSON()).toEqual({
      reason_code: 'demo_malformed',
      category: 'malformed',
      message: 'the demo artifact is malformed',
      location: { path: 'retail/sources/orders.yaml', line: 14, column: 5, pointer: 'fields[3].nulable' },
      hint: "did you mean 'nullable'?",
    });
    expect(refusal.message).toBe('the demo artifact is malformed');
  });

  it('adds an outer file name to an inner position without losing the line and column', () => {
    const inner = refuseDemo('demo_malformed', { role: 'bundle', location: { line: 3, column: 9 } });
    const outer = inner.at({ path: 'weekly/manifest.json' });
    expect(outer.location).toEqual({ path: 'weekly/manifest.json', line: 3, column: 9 });
    expect(outer.role).toBe('bundle');
    expect(outer.code).toBe('demo_malformed');
    expect(inner.location).toEqual({ line: 3, column: 9 });
  });

  it('redacted() keeps code, role and field and drops every located detail', () => {
    const located = refuseDemo('demo_missing', {
      role: 'mapping',
      field: 'tables[].cast',
      location: { path: 'SENTINEL_PATH', line: 2, column: 1, pointer: 'SENTINEL_KEY' },
      hint: 'SENTINEL_HINT',
    });
    const redacted = located.redacted();
    expect(redacted.toJSON()).toEqual({
      reason_code: 'demo_missing',
      category: 'missing',
      message: 'the demo artifact is missing',
      role: 'mapping',
      field: 'tables[].cast',
    });
    expect(JSON.stringify(redacted)).not.toContain('SENTINEL');
  });

  it('drops positions that are not 1-based integers and a column without a line', () => {
    const refusal = refuseDemo('demo_missing', { location: { line: 0, column: 4 } });
    expect(refusal.location).toBeUndefined();
    const halfway = refuseDemo('demo_missing', { location: { path: 'a.yaml', line: 1.5, column: 2 } });
    expect(halfway.location).toEqual({ path: 'a.yaml' });
  });

  it('shows control characters of a located path escaped, on one line', () => {
    const refusal = refuseDemo('demo_missing', { location: { path: 'a\nb\u001b[31m.yaml' } });
    expect(refusal.location?.path).toBe('a\\u000ab\\u001b[31m.yaml');
  });

  it('refuseAll keeps the first error as the refusal and lists the others, capped with a count', () => {
    const errors = Array.from({ length: 60 }, (_, i) =>
      refuseDemo('demo_malformed', { location: { line: i + 1 } }),
    );
    const all = refuseAll(errors);
    expect(all.code).toBe('demo_malformed');
    expect(all.location).toEqual({ line: 1 });
    expect(all.also.map((other) => other.location?.line)).toEqual(
      Array.from({ length: 49 }, (_, i) => i + 2),
    );
    expect(all.omitted).toBe(10);
    const json = all.toJSON();
    expect(json.also).toHaveLength(49);
    expect(json.omitted).toBe(10);
    expect(all.at({ path: 'a.yaml' }).also).toHaveLength(49);
    expect(all.redacted().also).toEqual([]);
    expect(all.redacted().toJSON()).not.toHaveProperty('also');
  });

  it('refuseAll of one refusal is that refusal, with nothing listed', () => {
    const one = refuseAll([refuseDemo('demo_missing')]);
    expect(one.toJSON()).toEqual({
      reason_code: 'demo_missing',
      category: 'missing',
      message: 'the demo artifact is missing',
    });
  });

  it('is() checks the table a refusal came from, not only its code', () => {
    const lookalike = defineRefusals<'demo_missing'>({
      demo_missing: { category: 'missing', message: 'another table' },
    });
    expect(refuseDemo.is(lookalike('demo_missing'))).toBe(false);
    expect(lookalike.is(refuseDemo('demo_missing'))).toBe(false);
    expect(refuseDemo.is(refuseDemo('demo_missing').at({ path: 'a.json' }))).toBe(true);
    expect(refuseDemo.is(refuseDemo('demo_missing', { hint: 'x' }).redacted())).toBe(true);
  });

  it('knows its own codes and no others', () => {
    expect(refuseDemo.codes).toEqual(['demo_missing', 'demo_malformed']);
    expect(refuseDemo.is(refuseDemo('demo_missing'))).toBe(true);
    const other = defineRefusals<'other_code'>({ other_code: { category: 'conflict', message: 'other' } });
    expect(refuseDemo.is(other('other_code'))).toBe(false);
  });

  it('refuses codes that are not lowercase identifiers', () => {
    expect(() => defineRefusals({ 'Bad-Code': { category: 'internal', message: 'x' } })).toThrow();
  });
});

describe('guardRefusals', () => {
  it('turns an unexpected exception into a fixed internal refusal without its text', () => {
    let caught: unknown;
    try {
      guardRefusals(() => {
        throw new Error('ENOENT: /home/customer/secret_schema.json');
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Refusal);
    const refusal = caught as Refusal;
    expect(refusal.code).toBe('internal_error');
    expect(refusal.message).not.toContain('secret_schema');
    expect(refusal.stack ?? '').not.toContain('secret_schema');
  });

  it('lets refusals through unchanged and returns values', () => {
    expect(guardRefusals(() => 7)).toBe(7);
    expect(() =>
      guardRefusals(() => {
        throw refuseDemo('demo_malformed');
      }),
    ).toThrow(expect.objectContaining({ code: 'demo_malformed' }));
  });

  it('uses the caller-chosen fallback', async () => {
    await expect(
      guardRefusalsAsync(
        async () => {
          throw new TypeError('boom');
        },
        () => refuseDemo('demo_missing'),
      ),
    ).rejects.toMatchObject({ code: 'demo_missing' });
  });
});
