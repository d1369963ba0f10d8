import { describe, expect, it } from 'vitest';
import { defineRefusals, refuseInternal } from '../core/refusal/index.js';
import { EXIT, exitCodeFor, exitCodeForResult } from './exit-codes.js';
import { UsageError } from './usage-error.js';

describe('exit codes', () => {
  const refuse = defineRefusals<'demo_refused'>({
    demo_refused: { category: 'malformed', message: 'refused' },
  });

  it('maps usage errors to 1, refusals to 2, internal refusals and other errors to 70', () => {
    expect(exitCodeFor(new UsageError('unknown option --x', 'usage'))).toBe(EXIT.usage);
    expect(exitCodeFor(refuse('demo_refused'))).toBe(EXIT.refused);
    expect(exitCodeFor(refuseInternal('internal_error'))).toBe(EXIT.internal);
    expect(exitCodeFor(new TypeError('bug'))).toBe(EXIT.internal);
  });

  it('a command stopped by a signal exits 128 + its number, before any refusal', () => {
    expect(exitCodeForResult({ interrupted: 'SIGINT', refused: true })).toBe(130);
    expect(exitCodeForResult({ interrupted: 'SIGTERM' })).toBe(143);
    expect(exitCodeForResult({ interrupted: 'SIGHUP', refused: true })).toBe(129);
    expect(exitCodeForResult({ refused: true })).toBe(EXIT.refused);
  });
});
