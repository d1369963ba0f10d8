import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { COMMANDS } from './commands/index.js';
import { OTHER_NAMES } from './main.js';

describe('command-line usage errors', () => {
  it('names an unknown command, suggests the nearest and points to the help, in one line each', () => {
    const run = runCli(['distrib']);
    expect(run.status).toBe(1);
    expect(run.stdout.toString()).toBe('');
    expect(run.stderr.toString()).toBe(
      "sealkit: unknown command 'distrib'\n  = help: did you mean 'distribute'?\nsee 'sealkit --help'\n",
    );
  });

  it.each([
    [
      ['contract', '--version'],
      "sealkit: unknown option --version where a command of 'contract' goes\n  = help: sealkit --version prints the version\nsee 'sealkit contract --help'\n",
    ],
    [
      ['distribute', '-q'],
      "sealkit: unknown option -q where a command of 'distribute' goes\n  = help: options go after the command: sealkit distribute <command> -q\nsee 'sealkit distribute --help'\n",
    ],
    [
      ['version'],
      "sealkit: unknown command 'version'\n  = help: did you mean '--version'?\nsee 'sealkit --help'\n",
    ],
  ])(
    'regression: %j is named as what it is (was "unknown command \'contract \'" with no hint)',
    (argv, stderr) => {
      const run = runCli(argv);
      expect(run.status).toBe(1);
      expect(run.stderr.toString()).toBe(stderr);
    },
  );

  it.each([
    [
      ['distribute', '-q', 'run'],
      '-q',
      'distribute',
      'options go after the command: sealkit distribute run -q',
    ],
    [
      ['contract', '-q', 'validate', 'retail'],
      '-q',
      'contract',
      'options go after the command: sealkit contract validate retail -q',
    ],
    [
      ['distribute', '--json', 'run'],
      '--json',
      'distribute',
      'options go after the command: sealkit distribute run --json',
    ],
  ])(
    "regression: sealkit %j names the option before the command (was \"unknown command 'distribute run'\", did you mean 'run')",
    (args, flag, group, hint) => {
      const run = runCli(args);
      expect(run.status).toBe(1);
      if (flag !== '--json') {
        expect(run.stdout.toString()).toBe('');
        expect(run.stderr.toString()).toBe(
          `sealkit: unknown option ${flag} where a command of '${group}' goes\n  = help: ${hint}\nsee 'sealkit ${group} --help'\n`,
        );
      }
      const json = runCli([...args, '--json']);
      expect(json.status).toBe(1);
      expect(JSON.parse(json.stdout.toString())).toEqual({
        status: 'usage_error',
        reason_code: 'usage',
        message: `unknown option ${flag} where a command of '${group}' goes`,
        hint,
      });
    },
  );

  it.each([
    [
      ['distribute', '--config', 'conf/x.yaml', 'run', '--dry-run'],
      "sealkit: unknown option --config where a command of 'distribute' goes\n  = help: options go after the command: sealkit distribute run --dry-run --config conf/x.yaml\nsee 'sealkit distribute --help'\n",
    ],
    [
      // regression: a flag's value after the command stays with its flag
      ['distribute', '--config', 'conf/x.yaml', 'run', '--pipeline', 'nightly'],
      "sealkit: unknown option --config where a command of 'distribute' goes\n  = help: options go after the command: sealkit distribute run --pipeline nightly --config conf/x.yaml\nsee 'sealkit distribute --help'\n",
    ],
    [
      // regression: with no command at all, the flag's value was read as the command
      ['distribute', '--config', 'conf/x.yaml'],
      "sealkit: unknown option --config where a command of 'distribute' goes\n  = help: options go after the command: sealkit distribute <command> --config conf/x.yaml\nsee 'sealkit distribute --help'\n",
    ],
    [
      // a misspelt command after an option is still named as the typo
      ['distribute', '--dry-run', 'runn'],
      "sealkit: unknown command 'distribute runn'\n  = help: did you mean 'run'?\nsee 'sealkit distribute --help'\n",
    ],
    [
      ['--config', 'conf/x.yaml', 'distribute', 'run'],
      "sealkit: unknown option --config\n  = help: options go after the command: sealkit distribute run --config conf/x.yaml\nsee 'sealkit --help'\n",
    ],
  ])(
    "regression: sealkit %j moves a flag with its value after the command (was \"unknown command 'distribute conf/x.yaml'\", or 'sealkit conf/x.yaml distribute run --config')",
    (args, stderr) => {
      const run = runCli(args);
      expect(run.status).toBe(1);
      expect(run.stdout.toString()).toBe('');
      expect(run.stderr.toString()).toBe(stderr);
    },
  );

  it("regression: `sealkit help -h` and `sealkit help --json` print the usage (were an unknown option and a command '')", () => {
    const usage = runCli(['--help']).stdout.toString();
    expect(runCli(['help', '-h']).stdout.toString()).toBe(usage);
    const json = runCli(['help', '--json']);
    expect(json.status).toBe(0);
    expect(`${(JSON.parse(json.stdout.toString()) as { usage: string }).usage}\n`).toBe(usage);
    // Regression: `sealkit help help` was "unknown command 'help'".
    const helpHelp = runCli(['help', 'help']);
    expect(helpHelp.status).toBe(0);
    expect(helpHelp.stdout.toString()).toBe(usage);
  });

  it("regression: completion's usage errors point at 'sealkit completion --help', not at a shell", () => {
    const run = runCli(['completion', 'bash', 'extra']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain("\nsee 'sealkit completion --help'\n");
  });

  it('regression: the help says where the installed guides are, by a path that exists from any folder', () => {
    const top = runCli(['--help']).stdout.toString();
    const folder = /\n {2}(\/\S+\/docs)\/\n/.exec(top)?.[1];
    expect(folder).toBeDefined();
    expect(existsSync(join(folder ?? '', 'distributor.md'))).toBe(true);
    const group = runCli(['contract', '--help']).stdout.toString();
    const guide = /Guide \(Markdown[^\n]*\n {2}(\S+)\n?$/.exec(group)?.[1];
    expect(guide).toBe(join(folder ?? '', 'contracts.md'));
    expect(existsSync(guide ?? '')).toBe(true);
  });

  it('suggests within a group and points to the group help', () => {
    const run = runCli(['distribute', 'verfy']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toBe(
      "sealkit: unknown command 'distribute verfy'\n  = help: did you mean 'verify'?\nsee 'sealkit distribute --help'\n",
    );
  });

  it.each([
    [['-v'], '-v', "did you mean '-V' (--version)?"],
    [['-H'], '-H', "did you mean '-h' (--help)?"],
    [['--verison'], '--verison', "did you mean '--version'?"],
    [['-version'], '-version', "did you mean '--version'?"],
    [['-q', 'distribute', 'run'], '-q', 'options go after the command: sealkit distribute run -q'],
  ])(
    'regression: sealkit %j names a flag where the command goes, with the flag it is near',
    (args, flag, hint) => {
      // `sealkit -v` said "unknown command '-v'" with no hint; `sealkit -q distribute run`
      // suggested 'run', which was typed.
      const run = runCli(args);
      expect(run.status).toBe(1);
      expect(run.stdout.toString()).toBe('');
      expect(run.stderr.toString()).toBe(
        `sealkit: unknown option ${flag}\n  = help: ${hint}\nsee 'sealkit --help'\n`,
      );
      const json = runCli(['--json', ...args]);
      expect(json.status).toBe(1);
      expect(JSON.parse(json.stdout.toString())).toEqual({
        status: 'usage_error',
        reason_code: 'usage',
        message: `unknown option ${flag}`,
        hint,
      });
    },
  );

  it('names an unknown flag with the nearest flag of that command', () => {
    const run = runCli(['json', 'canonicalize', '--jsn']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toBe(
      "sealkit: unknown option --jsn\n  = help: did you mean '--json'?\nsee 'sealkit json canonicalize --help'\n",
    );
  });

  it.each([
    [['evidence', 'check', '--max-age', '36h'], '--max-age', "did you mean '--max-evidence-age'?"],
    [['owner', 'verify', 'x.json', '--sha256', 'abc'], '--sha256', "did you mean '--expected-sha256'?"],
    // regression: an unknown short flag had no hint; it names the long flags it may stand for
    [['distribute', 'run', '-c', 'x.yaml'], '-c', "did you mean '--checksum' or '--config'?"],
    [['edition', 'check', 'acme', '-f', 'fixtures'], '-f', "did you mean '--fixtures'?"],
    [
      ['owner', 'verify', 'x.json', '--attempt', 'a.json'],
      '--attempt',
      '--attempt is an option of sealkit owner subjects',
    ],
    [
      ['owner', 'subjects', 'x.json', '--execution-grant', 'g.json'],
      '--execution-grant',
      '--execution-grant is an option of sealkit owner verify',
    ],
  ])('regression: %j names the flag it most likely meant', (args, flag, hint) => {
    const run = runCli(args);
    expect(run.status).toBe(1);
    expect(run.stderr.toString().split('\n').slice(0, 2)).toEqual([
      `sealkit: unknown option ${flag}`,
      `  = help: ${hint}`,
    ]);
  });

  it.each(['evidence check', 'scaffold --edition bigquery --workspace ws --source-id shop'])(
    "regression: %s says an evidence file is not read from standard input ('-'), not that it is missing",
    (command) => {
      const run = runCli([...command.split(' '), '--inventory-file', '-'], { input: '{}' });
      expect(run.status).toBe(1);
      expect(run.stderr.toString().split('\n').slice(0, 2)).toEqual([
        "sealkit: --inventory-file takes a file, not standard input ('-')",
        "  = help: save the document to a file and name it (a file called '-' is ./-)",
      ]);
    },
  );

  it.each([
    [['contract', 'validate', 'URL'], 'an argument', 'this command takes paths'],
    [['contract', 'affected', 'URL', '--resource', 'a.b'], 'an argument', 'this command takes paths'],
    [['contract', 'classify', 'URL', 'x.json'], 'an argument', 'this command takes paths'],
    [['contract', 'project', '.', '--out', 'URL'], '--out', '--out takes a path'],
    [['contract', 'publish', '--project', 'URL'], '--project', 'a ledger is named with --ledger URL'],
    [['contract', 'replay', 'URL'], 'an argument', 'a ledger is named with --ledger URL'],
  ])(
    'regression: sealkit %j refuses a database URL in place of a path without repeating it',
    (args, place, hint) => {
      const url = 'postgresql://ci:zqSentinel@db.internal/contracts?password=zqSentinel';
      for (const json of [[], ['--json']]) {
        const run = runCli([...args.map((word) => (word === 'URL' ? url : word)), ...json]);
        expect(run.status).toBe(1);
        const printed = run.stdout.toString() + run.stderr.toString();
        expect(printed).toContain(`a PostgreSQL URL was given as ${place}`);
        expect(printed).toContain(hint);
        expect(printed).not.toContain('zqSentinel');
        expect(printed).not.toContain('db.internal');
      }
    },
  );

  it('gives no hint for a flag that shares a word with several flags', () => {
    const run = runCli(['owner', 'verify', 'x.json', '--grant', 'q.json']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString().split('\n').slice(0, 2)).toEqual([
      'sealkit: unknown option --grant',
      "see 'sealkit owner verify --help'",
    ]);
  });

  it('names a surplus argument; a bare configuration file is pointed to --config', () => {
    const run = runCli(['distribute', 'run', 'pipelines.yaml']);
    expect(run.status).toBe(1);
    expect(run.stdout.toString()).toBe('');
    const lines = run.stderr.toString().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      "sealkit: unexpected argument 'pipelines.yaml'",
      '  = help: the configuration is named with --config: --config pipelines.yaml',
    ]);
    expect(lines[2]).toMatch(/^Usage: sealkit distribute run /);
  });

  it.each([[['distribute', 'run', 'reports/', '/srv/www/reports/']], [['distribute', 'run', 'reports']]])(
    'regression: %j, folders given as rsync takes them, says where the folders are set (was "--config reports/")',
    (args) => {
      const run = runCli(args);
      expect(run.status).toBe(1);
      expect(run.stderr.toString().split('\n').slice(0, 2)).toEqual([
        `sealkit: unexpected argument '${args[2]}'`,
        '  = help: this command takes no folders: it publishes from each source.root to the root of each destination, as the configuration sets them (sealkit.distributor.yaml, or --config FILE)',
      ]);
    },
  );

  const neverDeletes =
    'sealkit never deletes a published bundle the source no longer has (as rclone copy, not rclone sync): retire one by hand, as docs/distributor.md#a-bundle-removed-from-the-source shows';
  const reportAlways =
    'not needed: the report names every bundle and its outcome, and progress shows on a terminal (-q for neither)';
  it.each([
    ['-n', "did you mean '--dry-run'? (-n is the dry run of rsync and rclone)"],
    ['--delete', neverDeletes],
    ['--delete-after', neverDeletes],
    ['-a', 'not needed: a run publishes every bundle below each source.root, whole'],
    ['--archive', 'not needed: a run publishes every bundle below each source.root, whole'],
    ['-v', reportAlways],
    ['--progress', reportAlways],
    // regression: these were "did you mean '--pipeline'?" and "did you mean '--checksum'?".
    ['-P', reportAlways],
    [
      '--checkers',
      'not needed: sealkit looks at many bundles at once by itself; --transfers N sets how many are written at once to an S3 destination',
    ],
    [
      '--size-only',
      'not needed: outputs are compared with what a destination holds by size, unless --checksum compares them by SHA-256',
    ],
  ])(
    'regression: distribute run %s, a flag of rsync or rclone, is answered (was "unknown option" alone)',
    (flag, hint) => {
      const run = runCli(['distribute', 'run', flag]);
      expect(run.status).toBe(1);
      expect(run.stdout.toString()).toBe('');
      expect(run.stderr.toString()).toBe(
        `sealkit: unknown option ${flag}\n  = help: ${hint}\nsee 'sealkit distribute run --help'\n`,
      );
    },
  );

  it('regression: a flag of rsync is answered in --json too, and only by distribute run', () => {
    const run = runCli(['distribute', 'run', '-n', '--json']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout.toString())).toEqual({
      status: 'usage_error',
      reason_code: 'usage',
      message: 'unknown option -n',
      hint: "did you mean '--dry-run'? (-n is the dry run of rsync and rclone)",
    });
    const verify = runCli(['distribute', 'verify', 'b', '--delete']);
    expect(verify.stderr.toString()).not.toContain('rclone');
  });

  it.each([
    [['distribute', 'manifest', '--id', 'a'], 'missing argument BUNDLE_DIR'],
    [['distribute', 'verify'], 'missing argument BUNDLE_DIR'],
    [['owner', 'verify', '--expected-sha256', 'ab'], 'missing argument FILE'],
    [['edition', 'check'], 'missing argument PROJECT_DIR'],
  ])(
    'regression: a missing argument is named as the usage names it (was "missing argument"): %j',
    (args, message) => {
      const run = runCli(args);
      expect(run.status).toBe(1);
      expect(run.stderr.toString().split('\n')[0]).toBe(`sealkit: ${message}`);
    },
  );

  it('says how many arguments a command takes when one too many is given', () => {
    const run = runCli(['contract', 'validate', 'one', 'two', '--json']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout.toString())).toEqual({
      status: 'usage_error',
      reason_code: 'usage',
      message: "unexpected argument 'two'",
      hint: 'this command takes at most 1 argument',
    });
  });

  it('regression: a one-value flag given twice is refused, not the last one silently kept', () => {
    const run = runCli([
      'contract',
      'affected',
      'x',
      '--resource',
      'a.model.m',
      '--resource',
      'a.semantic.s',
      '--json',
    ]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout.toString())).toEqual({
      status: 'usage_error',
      reason_code: 'usage',
      message: 'option --resource given more than once',
      hint: '--resource takes one value: give it once',
    });
  });

  it('a switch given twice means what it means once', () => {
    const run = runCli(['json', 'digest', '--json', '--json'], { input: '{}' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ status: 'ok' });
  });

  it('offers the command a familiar other name stands for', () => {
    const run = runCli(['contract', 'check']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toBe(
      "sealkit: unknown command 'contract check'\n  = help: did you mean 'validate'?\nsee 'sealkit contract --help'\n",
    );
  });

  it('names only commands that exist as the other names’ targets', () => {
    const known = new Set(COMMANDS.map((command) => command.path.join(' ')));
    for (const [group, names] of Object.entries(OTHER_NAMES)) {
      for (const [name, target] of Object.entries(names)) {
        expect(known.has(`${group} ${target}`), `${group} ${name} → ${target}`).toBe(true);
        expect(known.has(`${group} ${name}`), `${group} ${name} is itself a command`).toBe(false);
      }
    }
  });

  it('gives no suggestion when nothing is close', () => {
    const run = runCli(['zzzzqqqq']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toBe("sealkit: unknown command 'zzzzqqqq'\nsee 'sealkit --help'\n");
  });

  it('reports a usage error as one JSON object on stdout with --json', () => {
    const run = runCli(['distrib', '--json']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout.toString())).toEqual({
      status: 'usage_error',
      reason_code: 'usage',
      message: "unknown command 'distrib'",
      hint: "did you mean 'distribute'?",
    });
  });

  it('`sealkit help <command>` prints that command’s help', () => {
    const help = runCli(['help', 'distribute', 'run']);
    const direct = runCli(['distribute', 'run', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toBe(direct.stdout.toString());
    expect(help.stdout.toString()).toMatch(/^Usage: sealkit distribute run/);
  });

  it('`sealkit help <group>` names the group in its usage line', () => {
    const run = runCli(['help', 'distribute']);
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toMatch(/^Usage: sealkit distribute <command> \[options\]\n/);
    expect(run.stdout.toString()).toContain('sealkit distribute verify');
    expect(run.stdout.toString()).not.toContain('sealkit json canonicalize');
  });

  it('regression: `sealkit help <command> <extra>` names the extra word, not an unknown command', () => {
    for (const [args, extra, command] of [
      [['help', 'completion', 'bash'], 'bash', 'completion'],
      [['help', 'json', 'digest', 'extra'], 'extra', 'json digest'],
    ] as const) {
      const run = runCli([...args]);
      expect(run.status).toBe(1);
      expect(run.stderr.toString()).toMatch(
        new RegExp(
          `^sealkit: unexpected argument '${extra}'\n {2}= help: help takes a command alone: sealkit help ${command}\n`,
        ),
      );
      expect(run.stderr.toString()).not.toContain('unknown command');
    }
  });

  it.each([
    [
      ['contract', 'validate', 'retail', '--out', 'x'],
      '--out',
      '--out is an option of sealkit contract project and schemas',
    ],
    [
      ['edition', 'check', 'acme', '--edition', 'bigquery'],
      '--edition',
      '--edition is an option of sealkit edition new',
    ],
    [['distribute', 'verify', 'b', '--id', 'x'], '--id', '--id is an option of sealkit distribute manifest'],
    [['evidence', 'check', '--out', 'x'], '--out', '--out is an option of sealkit evidence synth'],
    // regression: a short flag had no hint where its long name had one
    [
      ['contract', 'history', 'retail', '--resource', 'x', '-q'],
      '-q',
      '-q (--quiet) is an option of sealkit contract publish',
    ],
    [
      ['edition', 'new', '--edition', 'bigquery', 'x', '-q'],
      '-q',
      '-q (--quiet) is an option of sealkit edition check',
    ],
  ])('regression: %j names the sibling commands that take the flag (was no hint)', (args, flag, hint) => {
    const run = runCli(args);
    expect(run.status).toBe(1);
    expect(run.stdout.toString()).toBe('');
    expect(run.stderr.toString()).toBe(
      `sealkit: unknown option ${flag}\n  = help: ${hint}\nsee 'sealkit ${args.slice(0, 2).join(' ')} --help'\n`,
    );
    const json = runCli([...args, '--json']);
    expect(JSON.parse(json.stdout.toString())).toEqual({
      status: 'usage_error',
      reason_code: 'usage',
      message: `unknown option ${flag}`,
      hint,
    });
  });

  it('`sealkit help <unknown>` is a usage error with a suggestion', () => {
    const run = runCli(['help', 'contrct']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain("did you mean 'contract'?");
  });

  it.each([
    [
      '--wait -1',
      ['distribute', 'run', '--wait', '-1'],
      "--wait takes whole seconds from 0 to 86400, not '-1'",
    ],
    [
      '--wait 1.5',
      ['distribute', 'run', '--wait', '1.5'],
      "--wait takes whole seconds from 0 to 86400, not '1.5'",
    ],
    [
      '--transfers 0',
      ['distribute', 'run', '--transfers', '0'],
      "--transfers takes a whole number from 1 to 64, not '0'",
    ],
    [
      '--max-bytes 0',
      ['json', 'canonicalize', '--max-bytes', '0', 'x.json'],
      "--max-bytes takes a whole number of bytes from 1 to 9999999999999 (such as 10485760, no unit), not '0'",
    ],
    [
      '--max-bytes 1k',
      ['json', 'digest', '--max-bytes', '1k', 'x.json'],
      "--max-bytes takes a whole number of bytes from 1 to 9999999999999 (such as 10485760, no unit), not '1k'",
    ],
    [
      '--max-bytes -5',
      ['json', 'digest', '--max-bytes', '-5'],
      "--max-bytes takes a whole number of bytes from 1 to 9999999999999 (such as 10485760, no unit), not '-5'",
    ],
    [
      '--exclude at the end',
      ['distribute', 'manifest', 'out', '--id', 'x', '--exclude'],
      '--exclude takes a value, none given: --exclude GLOB',
    ],
    [
      '--exclude followed by a flag',
      ['distribute', 'manifest', 'out', '--exclude', '--replace', '--id', 'x'],
      "--exclude takes a value (--exclude GLOB), not the option '--replace'; write a value that starts with '-' as --exclude=GLOB",
    ],
    ['--json=1', ['distribute', 'run', '--json=1'], "--json takes no value, not '1'"],
    // Regression: a switch with a short form was named by it ("invalid value for option -q").
    ['--quiet=yes', ['distribute', 'run', '--quiet=yes'], "--quiet takes no value, not 'yes'"],
    ['--help=yes', ['contract', 'validate', '--help=yes'], "--help takes no value, not 'yes'"],
    [
      '--created 2026-05-30',
      ['distribute', 'manifest', 'out', '--id', 'x', '--created', '2026-05-30'],
      "--created takes an RFC 3339 timestamp such as 2026-05-30T00:00:00Z, not '2026-05-30'",
    ],
    [
      "--id ''",
      ['distribute', 'manifest', 'out', '--id', ''],
      "--id takes a bundle id such as weather.2026-05-30, not '': the id is empty, or only white space",
    ],
    [
      '--id with a tab',
      ['distribute', 'manifest', 'out', '--id', 'a\tb'],
      "--id takes a bundle id such as weather.2026-05-30, not 'a\\u0009b': the id holds a control character (a tab, a line break, an escape...)",
    ],
    [
      '--target prod',
      ['edition', 'check', 'p', '--target', 'prod'],
      "--target takes default or migration, not 'prod'",
    ],
  ])(
    'regression: a malformed flag value (%s) names the flag, the value and the accepted form',
    (_case, args, message) => {
      const run = runCli(args);
      expect(run.status).toBe(1);
      expect(run.stdout.toString()).toBe('');
      expect(run.stderr.toString().split('\n')[0]).toBe(`sealkit: ${message}`);
    },
  );

  it('regression: an unknown shell suggests the nearest and points to the completion help', () => {
    const run = runCli(['completion', 'bsh']);
    expect(run.status).toBe(1);
    const lines = run.stderr.toString().split('\n');
    expect(lines.slice(0, 2)).toEqual(["sealkit: unknown shell 'bsh'", "  = help: did you mean 'bash'?"]);
    expect(lines.at(-2)).toBe("see 'sealkit completion --help'");
  });

  it('regression: a misspelt --target suggests the nearest target', () => {
    const run = runCli(['edition', 'check', 'p', '--target', 'migraton']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain("  = help: did you mean 'migration'?\n");
  });
});
