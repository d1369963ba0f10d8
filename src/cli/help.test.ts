import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { COMMANDS } from './commands/index.js';
import { flagsOfUsage } from './completion-script.js';
import { fitColumns } from './fit-columns.js';

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

    it('wraps its prose: no line before the examples is wider than 105 columns as written', async () => {
      const { usage } = await entry.load();
      const prose = usage.slice(0, usage.indexOf('\nExamples:'));
      expect(prose.split('\n').filter((line) => line.length > 105)).toEqual([]);
    });

    it('regression: --help fits an 80-column terminal (synopses, flags and examples ran to 267 columns)', () => {
      const help = runCli([...entry.path, '--help']).stdout.toString();
      // A single word wider than the terminal (an absolute path) is never broken.
      const over = help.split('\n').filter((line) => line.length > 80 && line.trim().includes(' '));
      expect(over).toEqual([]);
    });

    it('prints the same text for --help, sealkit help and sealkit help help', async () => {
      const help = fitColumns((await entry.load()).usage);
      const run = runCli([...entry.path, '--help']);
      expect(run.status).toBe(0);
      expect(run.stdout.toString()).toBe(`${help}\n`);
      expect(runCli(['help', ...entry.path]).stdout.toString()).toBe(`${help}\n`);
      expect(runCli(['help', 'help', ...entry.path]).stdout.toString()).toBe(`${help}\n`);
    });

    it('shows the help even after a flag the command does not know', async () => {
      const usage = fitColumns((await entry.load()).usage);
      const help = runCli([...entry.path, '--no-such-flag', '--help', '--json']);
      expect(help.status).toBe(0);
      expect(JSON.parse(help.stdout.toString())).toEqual({ status: 'ok', usage });
    });
  },
);

describe('no command', () => {
  it('regression: bare sealkit is a usage error with the command list on stderr, not a success', () => {
    const bare = runCli([]);
    expect(bare.status).toBe(1);
    expect(bare.stdout.toString()).toBe('');
    const err = bare.stderr.toString();
    expect(err.startsWith('sealkit: missing command\nUsage: sealkit <command> [options]\n')).toBe(true);
    expect(err).toContain('  sealkit distribute run');
    expect(runCli(['--help']).status).toBe(0);
  });

  it('regression: a group without its command is a usage error naming the group', () => {
    const group = runCli(['contract']);
    expect(group.status).toBe(1);
    expect(group.stdout.toString()).toBe('');
    expect(group.stderr.toString()).toContain(
      "sealkit: missing command after 'contract'\nUsage: sealkit contract <command>",
    );
    const json = runCli(['contract', '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout.toString())).toEqual({
      status: 'usage_error',
      reason_code: 'usage',
      message: "missing command after 'contract'",
    });
    const help = runCli(['contract', '--help']);
    expect(help.status).toBe(0);
    expect(
      help.stdout.toString().startsWith('Usage: sealkit contract <command> [options]\n\nCommands:\n'),
    ).toBe(true);
  });
});

describe('the list of commands', () => {
  it.each([[[]], [['contract']], [['distribute']], [['json']], [['evidence']], [['edition']], [['owner']]])(
    'regression: sealkit %j --help fits an 80-column terminal (the summaries ran to 121 columns)',
    (group) => {
      const help = runCli([...group, '--help']).stdout.toString();
      // The guides' folder, an absolute path, may be longer: it is never broken.
      for (const line of help.split('\n').filter((line) => !line.startsWith('  /')))
        expect(line.length, line).toBeLessThanOrEqual(80);
      // A wrapped summary continues under itself.
      if (group.length === 0)
        expect(help).toContain(
          '  sealkit edition check        check a dbt project of the starter editions\n                               offline (schemas, Jinja, SQL, tests on DuckDB)\n',
        );
    },
  );
});

describe('the exit codes a list of commands names', () => {
  it.each([
    [['distribute'], 'distribute run also 130 / 143 / 129'],
    [['edition'], 'edition new also 130 / 143 / 129'],
    [['evidence'], 'evidence synth also 130 / 143 / 129'],
    [['contract'], undefined],
    [['json'], undefined],
  ])(
    "regression: sealkit %j --help names only its own commands' exit codes (listed scaffold's 3 and 4)",
    (group, signals) => {
      const help = runCli([...group, '--help'])
        .stdout.toString()
        .replaceAll('\n', ' ');
      expect(help).toContain(
        'Every command: exit 0 success, 1 usage error (nothing written), 2 refused, 70 internal error',
      );
      expect(help).not.toContain('scaffold also');
      expect(help).not.toContain('3 published');
      if (signals === undefined) expect(help).not.toContain('130');
      else
        expect(help).toContain(
          `${signals} when SIGINT / SIGTERM / SIGHUP stopped it before its commit point`,
        );
    },
  );

  it("the list of every command still names them all, scaffold's own among them", () => {
    const help = runCli(['--help']).stdout.toString().replaceAll('\n', ' ');
    expect(help).toContain('scaffold also: 3 published with a condition, 4 published but unverified');
  });
});

describe('a malformed flag value', () => {
  it('prints one line, the synopsis and where the help is, not the whole help', () => {
    const result = runCli(['distribute', 'run', '--transfers', '0']);
    expect(result.status).toBe(1);
    const lines = result.stderr.toString().split('\n');
    expect(lines[0]).toBe("sealkit: --transfers takes a whole number from 1 to 64, not '0'");
    expect(lines[1]?.startsWith('Usage: sealkit distribute run ')).toBe(true);
    expect(lines.at(-2)).toBe("see 'sealkit distribute run --help'");
    expect(lines.length).toBeLessThanOrEqual(6);
  });

  it('suggests the edition a mistyped --edition was near', () => {
    const result = runCli(['edition', 'new', '--edition', 'bigqery', 'x']);
    expect(result.status).toBe(1);
    expect(result.stderr.toString()).toContain(
      "sealkit: invalid value 'bigqery' for option --edition (one of: bigquery, snowflake)\n  = help: did you mean 'bigquery'?\n",
    );
  });
});

describe('the examples of the evidence and scaffold helps', () => {
  const work = mkdtempSync(join(tmpdir(), 'sealkit-help-chain-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  async function firstExample(path: readonly string[]): Promise<readonly string[]> {
    const entry = COMMANDS.find((command) => command.path.join(' ') === path.join(' '));
    if (entry === undefined) throw new Error(`no command ${path.join(' ')}`);
    const line = section((await entry.load()).usage, 'Examples:')
      .split('\n')
      .find((candidate) => candidate.includes('sealkit '));
    return exampleWords(line ?? '').slice(1);
  }

  it('regression: run one after another as printed, they bind and plan (one alias throughout)', async () => {
    const synth = runCli(await firstExample(['evidence', 'synth']), { cwd: work });
    expect(synth.status, synth.stderr.toString()).toBe(0);
    const runId = (readdirSync(join(work, 'evidence', 'run-manifests'))[0] ?? '').replace(/\.json$/, '');
    const withRun = (words: readonly string[]) => words.map((word) => word.replace('RUN_ID', runId));
    const check = runCli(withRun(await firstExample(['evidence', 'check'])), { cwd: work });
    expect(check.status, check.stderr.toString()).toBe(0);
    const edition = runCli(['edition', 'new', '--edition', 'bigquery', 'acme-retail'], { cwd: work });
    expect(edition.status, edition.stderr.toString()).toBe(0);
    const scaffold = runCli(withRun(await firstExample(['scaffold'])), { cwd: work });
    expect(scaffold.status, scaffold.stdout.toString()).toBe(0);
    expect(JSON.parse(scaffold.stdout.toString())).toMatchObject({ status: 'plan_only' });
  });
});
