import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RefusalFactory } from '../../src/core/refusal/index.js';
import { REPO_ROOT } from '../helpers/cli.js';

// Every refusal table of sealkit, found by reading the sources for
// defineRefusals: codes unique across all of them, each with a fixed message
// and a docs entry (docs/refusals.md#adding-a-code).

const SRC = join(REPO_ROOT, 'src');
const DOCS = join(REPO_ROOT, 'docs');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

function isFactory(value: unknown): value is RefusalFactory<string> {
  return typeof value === 'function' && Array.isArray((value as { codes?: unknown }).codes);
}

async function factories(): Promise<ReadonlyMap<string, RefusalFactory<string>>> {
  const found = new Map<string, RefusalFactory<string>>();
  const defining = sourceFiles(SRC).filter((file) =>
    /defineRefusals<[^>]+>\(/.test(readFileSync(file, 'utf8')),
  );
  for (const file of defining) {
    const module: Record<string, unknown> = await import(/* @vite-ignore */ pathToFileURL(file).href);
    for (const [name, value] of Object.entries(module)) {
      if (isFactory(value)) found.set(`${relative(SRC, file)}:${name}`, value);
    }
  }
  return found;
}

const docs = readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .map((name) => readFileSync(join(DOCS, name), 'utf8'))
  .join('\n');

describe('refusal codes', () => {
  it('are found in every module that defines a table', async () => {
    const all = await factories();
    expect(all.size).toBeGreaterThanOrEqual(14);
  });

  it('are unique across all of sealkit', async () => {
    const owners = new Map<string, string[]>();
    for (const [name, factory] of await factories()) {
      for (const code of factory.codes) owners.set(code, [...(owners.get(code) ?? []), name]);
    }
    const duplicated = [...owners].filter(([, names]) => names.length > 1);
    expect(duplicated).toEqual([]);
  });

  it('each have a fixed message and a docs entry', async () => {
    const undocumented: string[] = [];
    for (const factory of (await factories()).values()) {
      for (const code of factory.codes) {
        const spec = factory.table[code];
        expect(spec?.message.length ?? 0).toBeGreaterThan(10);
        if (!new RegExp(`\\b${code}\\b`).test(docs)) undocumented.push(code);
      }
    }
    expect(undocumented).toEqual([]);
  });
});
