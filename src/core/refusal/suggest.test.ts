import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearest } from './suggest.js';

describe('did you mean', () => {
  it('suggests the allowed key one typo away', () => {
    expect(didYouMean('nulable', ['name', 'type', 'nullable', 'description'])).toBe(
      "did you mean 'nullable'?",
    );
    expect(didYouMean('htm', ['source', 'html'])).toBe("did you mean 'html'?");
  });

  it('suggests a command the user typed the start of', () => {
    expect(
      nearest('distrib', ['json', 'evidence', 'distribute', 'edition', 'scaffold', 'owner', 'contract']),
    ).toBe('distribute');
  });

  it('counts an adjacent swap as one edit', () => {
    expect(editDistance('chekc', 'check')).toBe(1);
    expect(nearest('chekc', ['check', 'new'])).toBe('check');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(nearest('zzzzzz', ['source', 'html'])).toBeUndefined();
    expect(nearest('id', ['kind'])).toBeUndefined();
    expect(didYouMean('x', [])).toBeUndefined();
  });

  it('picks the same candidate whatever the order of the candidates', () => {
    expect(nearest('bar', ['baz', 'bat'])).toBe('bat');
    expect(nearest('bar', ['bat', 'baz'])).toBe('bat');
  });
});
