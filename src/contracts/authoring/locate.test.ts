import { describe, expect, it } from 'vitest';
import { readStrictYaml } from '../../core/input/index.js';
import { authoredPointerOf } from './locate.js';
import { refuseContract } from './refusals.js';

const SOURCE = [
  'kind: Source',
  'contract:',
  '  version: 1.4.0',
  'fields:',
  '  - name: order_id',
  '    type: int64',
  '  - name: amount',
  '    type: decimal(14,2)',
  '  - name: "odd]name"',
  '    type: string',
  '',
].join('\n');

const root = readStrictYaml(SOURCE, {
  refuse: () => refuseContract('contract_yaml_malformed', { role: 'source' }),
});

describe('authoredPointerOf', () => {
  it('follows a change path to the member with that name, then its key', () => {
    expect(authoredPointerOf(root, 'content.fields[amount].type')).toBe('fields[1].type');
    expect(authoredPointerOf(root, 'contract.version')).toBe('contract.version');
  });

  it('reads a member name with an escaped bracket', () => {
    expect(authoredPointerOf(root, 'content.fields[odd\\]name].type')).toBe('fields[2].type');
  });

  it('stops at the deepest place the file has', () => {
    expect(authoredPointerOf(root, 'content.fields[amount].classification')).toBe('fields[1]');
    // No member of that name (checks are labelled, not named): no place rather than the list's first member.
    expect(authoredPointerOf(root, 'content.fields[discount].type')).toBeUndefined();
  });

  it('gives nothing when not even the first key is written', () => {
    expect(authoredPointerOf(root, 'content.measures[revenue].agg')).toBeUndefined();
    expect(authoredPointerOf(null, 'content.fields[amount].type')).toBeUndefined();
  });
});
