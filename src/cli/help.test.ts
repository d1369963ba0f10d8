import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { COMMANDS } from './commands/index.js';
import { flagsOfUsage } from './completion-script.js';

// Every command's --help has the same sections, and what they say agrees:
// docs/cli.md.

function section(usage: string, heading: string): string {
  const start = usage.indexOf(`\n${heading}\n`);
  if (start === -1) return '';
  const rest = usage.slice(start + heading.length + 2);
  const end = rest.search(/\n\n(?! )/);
  return end === -1 ? rest : rest.slice(0, end);
}

/**
 * The shell words of the sealkit command in one example line: from `sealkit`
 * to a closing `)`, a redirection or a pipe (`eval "$(sealkit …)"`,
 * `producer | sealkit …`, `sealkit … > file`).
 */
function exampleWords(line: string): readonly string[] {
  const from = line.slice(line.indexOf('sealkit '));
  const command = from.split(/\)|\s>|\s\|/)[0] ?? '';
  return (command.trim().match(/'[^']*'|\S+/g) ?? []).map((word) => word.replace(/^'|'$/g, ''));
}

describe.each(COMMANDS.map((entry) => [entry.path.join(' '), entry] as const))(
  'sealkit %s --help',
  (name, entry) => {
    it('has Usage, Flags and Examples, and names every flag of its usage line under Flags', async () => {
      const { usage } = await entry.load();
      expect(usage.startsWith(`Usage: sealkit ${name}`)).toBe(true);
      const flags = section(usage, 'Flags:');
      expect(flags).not.toBe('');
      expect(section(usage, 'Examples:')).not.toBe('');
      const usageLines = usage.slice(0, usage.indexOf('\n\n'));
      for (const flag of flagsOfUsage(usageLines)) expect(flags).toContain(flag);
      expect(flags).toContain('--help');
    });

    it('gives examples that run this very command with flags it has', async () => {
      const { usage } = await entry.load();
      const flags = section(usage, 'Flags:');
      const examples = section(usage, 'Examples:')
        .split('\n')
        .filter((line) => line.includes('sealkit '));
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        const words = exampleWords(example);
        expect(words.slice(0, entry.path.length + 1)).toEqual(['sealkit', ...entry.path]);
        for (const word of words.filter((w) => w.startsWith('--'))) expect(flags).toContain(word);
      }
    });

    it('prints the same text for --help and for sealkit help', async () => {
      const { usage } = await entry.load();
      const help = runCli([...entry.path, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout.toString()).toBe(`${usage}\n`);
      expect(runCli(['help', ...entry.path]).stdout.toString()).toBe(`${usage}\n`);
    });

    it('shows the help even after a flag the command does not know', async () => {
      const { usage } = await entry.load();
      const help = runCli([...entry.path, '--no-such-flag', '--help', '--json']);
      expect(help.status).toBe(0);
      expect(JSON.parse(help.stdout.toString())).toEqual({ status: 'ok', usage });
    });
  },
);
