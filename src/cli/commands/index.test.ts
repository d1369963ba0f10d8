import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './index.js';

function isCommand(value: unknown): value is { path: readonly string[]; run: unknown } {
  return typeof value === 'object' && value !== null && 'path' in value && 'run' in value;
}

describe('the lazy command table', () => {
  it('loads, for every entry, the command with exactly that path', async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(command.path).toEqual(entry.path);
      expect(entry.summary.length).toBeGreaterThan(0);
    }
  });

  it('lists every command that a command module exports, once', async () => {
    const listed = COMMANDS.map((entry) => entry.path.join(' '));
    expect(new Set(listed).size).toBe(listed.length);
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const modules = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    const exported: string[] = [];
    for (const name of modules) {
      const module: Record<string, unknown> = await import(
        /* @vite-ignore */ new URL(name, import.meta.url).href
      );
      for (const value of Object.values(module)) if (isCommand(value)) exported.push(value.path.join(' '));
    }
    expect(exported.sort()).toEqual([...listed].sort());
  });
});
