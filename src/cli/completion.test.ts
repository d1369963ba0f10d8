import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { COMMANDS } from './commands/index.js';
import { flagsOfUsage } from './completion-script.js';

// The completion scripts, run in the real shells (bash, zsh, fish from
// Debian's packages, installed by .ci/run).

const work = mkdtempSync(join(tmpdir(), 'sealkit-completion-'));

function script(shell: string): string {
  const run = runCli(['completion', shell]);
  expect(run.status).toBe(0);
  const path = join(work, `sealkit.${shell}`);
  writeFileSync(path, run.stdout);
  return path;
}

const bashScript = script('bash');
const zshScript = script('zsh');
const fishScript = script('fish');

/** What the bash completion function offers for the words typed so far (the last one being completed). */
function bash(words: readonly string[]): readonly string[] {
  const array = words.map((word) => `'${word}'`).join(' ');
  const run = spawnSync(
    'bash',
    [
      '-c',
      `source '${bashScript}'; COMP_WORDS=(sealkit ${array}); COMP_CWORD=${words.length}; _sealkit; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { cwd: work, encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter((line) => line !== '');
}

/** The same in zsh through bashcompinit; zsh filters the candidates by the typed prefix itself. */
function zsh(words: readonly string[]): readonly string[] {
  const array = words.map((word) => `'${word}'`).join(' ');
  const run = spawnSync(
    'zsh',
    [
      '-f',
      '-c',
      `autoload -U compinit && compinit -u -D; source '${zshScript}'; setopt ksharrays; COMP_WORDS=(sealkit ${array}); COMP_CWORD=${words.length}; _sealkit; print -l -- "\${COMPREPLY[@]}"`,
    ],
    { cwd: work, encoding: 'utf8', env: { ...process.env, HOME: work } },
  );
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter((line) => line !== '');
}

/** What fish itself completes for a command line, typed in `cwd`. */
function fish(line: string, cwd = work): readonly string[] {
  const run = spawnSync('fish', ['--no-config', '-c', `source '${fishScript}'; complete -C '${line}'`], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: work, XDG_CONFIG_HOME: work, XDG_DATA_HOME: work },
  });
  expect(run.stderr).toBe('');
  return run.stdout
    .split('\n')
    .filter((entry) => entry !== '')
    .map((entry) => entry.split('\t')[0] ?? '');
}

/**
 * Types `line` and TAB into the real interactive shell on a terminal, then
 * prints the line as the shell's line editor holds it (`<<line>>`, from a
 * key bound to print it): what a user sees after TAB, with the shell's own
 * file-name completion and its '/' after a folder. Driven through python3's
 * pty module, as Node has no terminal of its own to offer.
 */
const TYPE_AND_TAB = String.raw`
import os, pty, re, select, sys, time
shell, script, line, home = sys.argv[1:5]
if shell == "bash":
    rc = os.path.join(home, "bashrc")
    with open(rc, "w") as f:
        f.write("PS1='$ '\nsource '%s'\nbind -x '\"\\C-t\": printf \"<<%%s>>\\n\" \"$READLINE_LINE\"'\n" % script)
    argv = ["bash", "--noprofile", "--rcfile", rc, "-i"]
else:
    load = "source '%s'" % script
    if shell == "zsh-fpath":
        # Saved as _sealkit in a folder of $fpath, loaded by compinit on the first TAB.
        os.mkdir(os.path.join(home, "functions"))
        with open(script) as source, open(os.path.join(home, "functions", "_sealkit"), "w") as saved:
            saved.write(source.read())
        load = ""
    with open(os.path.join(home, ".zshrc"), "w") as f:
        f.write("PS1='$ '\nfpath=('%s/functions' $fpath)\nautoload -U compinit && compinit -u -D\n%s\n_show() { print -r -- \"<<$BUFFER>>\" }\nzle -N _show\nbindkey '^T' _show\n" % (home, load))
    argv = ["zsh", "-i"]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
seen = b""
def wait_for(pattern):
    global seen
    end = time.time() + 10
    while time.time() < end:
        found = re.search(pattern, seen)
        if found: return found
        if select.select([fd], [], [], 0.05)[0]:
            try: seen += os.read(fd, 65536)
            except OSError: break
    return None
wait_for(rb"\$ ")
seen = b""
os.write(fd, line.encode() + b"\t")
time.sleep(0.3)
os.write(fd, b"\x14")
found = wait_for(rb"<<(.*?)>>")
os.kill(pid, 9)
sys.stdout.write(found.group(1).decode() if found else "<no line>")
`;

/** The command line after typing `line` and TAB in an interactive bash or zsh with sealkit's script loaded. */
function afterTab(shell: 'bash' | 'zsh' | 'zsh-fpath', line: string, cwd: string): string {
  const home = mkdtempSync(join(work, `home-${shell}-`));
  const run = spawnSync(
    'python3',
    ['-c', TYPE_AND_TAB, shell, shell === 'bash' ? bashScript : zshScript, line, home],
    { cwd, encoding: 'utf8', env: { ...process.env, HOME: home, ZDOTDIR: home }, timeout: 30_000 },
  );
  expect(run.stderr).toBe('');
  return run.stdout;
}

/** A folder with one file and one folder per initial, for the file-name completions. */
function filesToComplete(): string {
  const tree = join(work, 'tree');
  mkdirSync(join(tree, 'acme', 'fixtures'), { recursive: true });
  writeFileSync(join(tree, 'doc.json'), '{}');
  writeFileSync(join(tree, 'pipelines.yaml'), 'pipelines: []\n');
  return tree;
}

describe('sealkit completion', () => {
  it('bash completes commands, subcommands and each command’s flags', () => {
    expect(bash(['distrib'])).toEqual(['distribute']);
    expect(bash(['distribute', 've'])).toEqual(['verify']);
    expect(bash(['contract', ''])).toEqual([
      'validate',
      'project',
      'schemas',
      'classify',
      'publish',
      'history',
      'replay',
      'affected',
    ]);
    expect(bash(['distribute', 'run', '--c'])).toEqual(['--checksum', '--config']);
    expect(bash(['edition', 'new', '--dry-run', '--ed'])).toEqual(['--edition']);
    expect(bash(['help', 'sca'])).toEqual(['scaffold']);
  });

  it('regression: bash offers the values a flag or an argument takes, not file names', () => {
    expect(bash(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bash(['completion', 'z'])).toEqual(['zsh']);
    expect(bash(['edition', 'new', '--edition', ''])).toEqual(['bigquery', 'snowflake']);
    expect(bash(['contract', 'classify', 'a.json', 'b.json', '--fail-on', 'w'])).toEqual(['widening']);
    expect(bash(['evidence', 'synth', '--source', ''])).toEqual(['csv', 'sql']);
    // After the value, flags again.
    expect(bash(['edition', 'new', '--edition', 'bigquery', '--dr'])).toEqual(['--dry-run']);
  });

  for (const shell of ['bash', 'zsh'] as const) {
    it(`regression: ${shell} completes a folder with '/', so the next TAB goes into it`, () => {
      const tree = filesToComplete();
      writeFileSync(join(tree, 'acme', 'fixtures', 'orders.csv'), 'id\n');
      // A space after `acme` (what `compgen -f` gave) left no way into the folder.
      expect(afterTab(shell, 'sealkit json digest ac', tree)).toBe('sealkit json digest acme/');
      expect(afterTab(shell, 'sealkit json digest acme/fixtures/o', tree)).toBe(
        'sealkit json digest acme/fixtures/orders.csv ',
      );
      expect(afterTab(shell, 'sealkit distribute run --config ac', tree)).toBe(
        'sealkit distribute run --config acme/',
      );
      expect(afterTab(shell, 'sealkit json digest d', tree)).toBe('sealkit json digest doc.json ');
    });

    it(`regression: ${shell} completes a flag's value after '=' as after a space`, () => {
      const tree = filesToComplete();
      expect(afterTab(shell, 'sealkit edition new --edition=b', tree)).toBe(
        'sealkit edition new --edition=bigquery ',
      );
      expect(afterTab(shell, 'sealkit distribute run --config=p', tree)).toBe(
        'sealkit distribute run --config=pipelines.yaml ',
      );
      expect(afterTab(shell, 'sealkit edition check acme --fixtures=acme/f', tree)).toBe(
        'sealkit edition check acme --fixtures=acme/fixtures/',
      );
    });
  }

  it('regression: zsh completes on the first TAB with the script saved as _sealkit in $fpath', () => {
    // The file only defined the completion then, so the first TAB of a session completed nothing.
    const tree = filesToComplete();
    expect(afterTab('zsh-fpath', 'sealkit contract v', tree)).toBe('sealkit contract validate ');
    expect(afterTab('zsh-fpath', 'sealkit edition check a', tree)).toBe('sealkit edition check acme/');
  });

  it('regression: eval of each script succeeds (zsh returned 1, a failed last command of ~/.zshrc)', () => {
    const zshRun = spawnSync(
      'zsh',
      ['-f', '-c', `autoload -U compinit && compinit -u -D; source '${zshScript}'`],
      {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, HOME: work },
      },
    );
    expect(zshRun.stderr).toBe('');
    expect(zshRun.status).toBe(0);
    const bashRun = spawnSync('bash', ['-c', `source '${bashScript}'`], { cwd: work, encoding: 'utf8' });
    expect(bashRun.stderr).toBe('');
    expect(bashRun.status).toBe(0);
  });

  it('regression: zsh without compinit is told to load it (was "command not found: compdef")', () => {
    const run = spawnSync('zsh', ['-f', '-c', `source '${zshScript}'; print loaded`], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, HOME: work },
    });
    expect(run.stderr).toBe(
      "sealkit: zsh completion needs compinit loaded first: add 'autoload -U compinit && compinit' before this line in ~/.zshrc\n",
    );
    // The rest of ~/.zshrc still runs.
    expect(run.stdout).toBe('loaded\n');
    expect(run.status).toBe(0);
  });

  it('regression: bash offers a group’s commands after help and the group', () => {
    expect(bash(['help', 'contract', 'v'])).toEqual(['validate']);
    expect(bash(['help', 'distribute', ''])).toEqual(['run', 'verify', 'manifest']);
    expect(bash(['edition', 'new', '--edition', '=', ''])).toEqual(['bigquery', 'snowflake']);
  });

  it('zsh offers the same candidates', () => {
    expect(zsh(['distrib'])).toContain('distribute');
    expect(zsh(['distribute', 'run', '--c'])).toContain('--config');
    expect(zsh(['distribute', 'run', '--c'])).not.toContain('--edition');
  });

  it('fish completes commands, subcommands and flags', () => {
    expect(fish('sealkit distrib')).toEqual(['distribute']);
    expect(fish('sealkit contract cl')).toEqual(['classify']);
    expect(fish('sealkit distribute run --con')).toEqual(['--config']);
  });

  it('regression: fish offers the commands after help, and sealkit’s own flags', () => {
    expect(fish('sealkit help con')).toEqual(['contract']);
    expect(fish('sealkit help ')).toContain('distribute');
    expect(fish('sealkit help contract v')).toEqual(['validate']);
    expect(fish('sealkit --v')).toEqual(['--version']);
    expect(fish('sealkit -')).toEqual(['-h', '-V', '--help', '--version']);
  });

  it('regression: fish offers the values a flag or an argument takes', () => {
    // fish sorts the candidates itself.
    expect(fish('sealkit completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(fish('sealkit edition new --edition ')).toEqual(['bigquery', 'snowflake']);
    expect(fish('sealkit contract classify a.json b.json --fail-on ')).toEqual([
      'breaking',
      'compatible',
      'widening',
    ]);
  });

  it('regression: fish completes file names for arguments and flags that name a file or folder', () => {
    const tree = filesToComplete();
    // An argument FILE or DIR, also after a switch or a flag's value.
    expect(fish('sealkit json digest d', tree)).toEqual(['doc.json']);
    expect(fish('sealkit json canonicalize --python d', tree)).toEqual(['doc.json']);
    expect(fish('sealkit edition check a', tree)).toEqual(['acme/']);
    expect(fish('sealkit edition new --edition bigquery a', tree)).toEqual(['acme/']);
    expect(fish('sealkit distribute verify a', tree)).toEqual(['acme/']);
    expect(fish('sealkit contract classify doc.json d', tree)).toEqual(['doc.json']);
    expect(fish('sealkit edition check acme/', tree)).toEqual(['acme/fixtures/']);
    // A flag's value, as the next word and after '='.
    expect(fish('sealkit distribute run --config p', tree)).toEqual(['pipelines.yaml']);
    expect(fish('sealkit distribute run --config=p', tree)).toEqual(['--config=pipelines.yaml']);
    expect(fish('sealkit edition check acme --fixtures acme/f', tree)).toEqual(['acme/fixtures/']);
    expect(fish('sealkit edition check acme --fixtures=acme/f', tree)).toEqual(['--fixtures=acme/fixtures/']);
    expect(fish('sealkit scaffold --workspace a', tree)).toEqual(['acme/']);
    expect(fish('sealkit owner subjects doc.json --attempt d', tree)).toEqual(['doc.json']);
  });

  it('regression: fish offers no file names where a command takes none', () => {
    const tree = filesToComplete();
    expect(fish('sealkit ', tree)).toContain('distribute');
    expect(fish('sealkit ', tree)).not.toContain('doc.json');
    expect(fish('sealkit distribute ', tree)).toEqual(['manifest', 'run', 'verify']);
    // distribute run takes no argument; --pipeline, --id, --vars and --max-bytes take no path.
    expect(fish('sealkit distribute run d', tree)).toEqual([]);
    expect(fish('sealkit distribute run --pipeline d', tree)).toEqual([]);
    expect(fish('sealkit distribute manifest acme --id d', tree)).toEqual([]);
    expect(fish('sealkit edition check acme --vars d', tree)).toEqual([]);
    expect(fish('sealkit json digest --max-bytes d', tree)).toEqual([]);
    expect(fish('sealkit completion ', tree)).toEqual(['bash', 'fish', 'zsh']);
    expect(fish('sealkit edition new --edition ', tree)).toEqual(['bigquery', 'snowflake']);
    // Flags and switches complete as before, and a switch takes no value.
    expect(fish('sealkit json digest --b', tree)).toEqual(['--bare']);
    expect(fish('sealkit json digest --bare d', tree)).toEqual(['doc.json']);
  });

  it('regression: no shell offers a flag the command refuses, which its help names only in prose', () => {
    // "the saved --dry-run report" (evidence check), "written by contract project --out" (classify).
    expect(bash(['evidence', 'check', '--dr'])).toEqual([]);
    expect(bash(['contract', 'classify', 'a.json', 'b.json', '--o'])).toEqual([]);
    expect(fish('sealkit evidence check --dr')).toEqual([]);
    expect(fish('sealkit evidence synth --fi')).toEqual(['--finished-at']);
    expect(runCli(['evidence', 'check', '--dry-run']).status).toBe(1);
  });

  it('covers every command of the table and every flag its help lists', async () => {
    const bashText = spawnSync('cat', [bashScript], { encoding: 'utf8' }).stdout;
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(bashText).toContain(`'${entry.path.join(' ')}')`);
      for (const flag of flagsOfUsage(command.usage)) expect(bashText).toContain(flag);
    }
  });

  it('refuses an unknown shell as a usage error naming it', () => {
    const run = runCli(['completion', 'tcsh']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain("unknown shell 'tcsh'");
  });
});

describe('flags of a usage text', () => {
  it('are every --flag it names, with --help, sorted and once each', () => {
    expect(
      flagsOfUsage('Usage: x [--json] [--config FILE]\n  --config FILE  the file (default --config)'),
    ).toEqual(['--config', '--help', '--json']);
  });

  it('are not the flags its prose mentions', () => {
    const usage =
      'Usage: x [--json]\n\nReads what y --out wrote.\n\nFlags:\n  -q, --quiet   as y --dry-run does\n  --max N       at most N';
    expect(flagsOfUsage(usage)).toEqual(['--help', '--json', '--max', '--quiet']);
  });
});
