import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/resources.js';
import { CONTRACT_RULES } from './rules.js';

describe('the rule table in docs/contracts.md', () => {
  it('lists every rule with the verdict the classifier gives it, and no other rule', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'contracts.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Rule table'), docs.indexOf('**Type widening**'));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` +\| ([a-z]+) +\|/gm)].map((match) => [
      match[1],
      match[2],
    ]);
    expect(rows).toEqual(Object.entries(CONTRACT_RULES).map(([id, rule]) => [id, rule.verdict]));
  });
});
