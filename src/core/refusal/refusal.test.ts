import { describe, expect, it } from 'vitest';
import { guardRefusals, guardRefusalsAsync } from './guard.js';
import { defineRefusals, Refusal, type RefusalTable } from './refusal.js';

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
