import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands/index.js';
import { fitColumns } from './fit-columns.js';

/** The shell words of a text, a ` \` line break read as the shell reads it, comments left out. */
function shellWords(text: string): readonly string[] {
  const code = text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .join('\n');
  return code.replace(/ \\\n */g, ' ').match(/(?:'[^']*'|"[^"]*"|[^\s'"]+)+/g) ?? [];
}

/** The words of a text; a `#` alone is left out, as a comment carried on starts each line with one. */
function words(text: string): readonly string[] {
  return text.split(/\s+/).filter((word) => word !== '' && word !== '#');
}

describe('help fitted to 80 columns', () => {
  it('leaves a text whose lines fit exactly as written', () => {
    const text = 'Usage: sealkit json digest [--json]\n\nFlags:\n  --json  print one JSON object\n';
    expect(fitColumns(text)).toBe(text);
  });

  it('continues a flag description under the description, with the lines that carried it on', () => {
    const text = [
      'Flags:',
      `  --wait SECONDS  ${'wait for another run '.repeat(4).trim()}`,
      '                  to finish first',
      '  --json          print one JSON object',
    ].join('\n');
    expect(fitColumns(text).split('\n')).toEqual([
      'Flags:',
      '  --wait SECONDS  wait for another run wait for another run wait for another run',
      '                  wait for another run to finish first',
      '  --json          print one JSON object',
    ]);
  });

  it('continues a flag as wide as its column under the column of the other flags', () => {
    const text = [
      '  --dry-run                   print the plan and write nothing at all, not even a lock',
      '  --max-evidence-age DURATION maximum age of the run: 36h, 7d, 90m, 45s or seconds; no default',
    ].join('\n');
    expect(fitColumns(text).split('\n')).toEqual([
      '  --dry-run                   print the plan and write nothing at all, not even',
      '                              a lock',
      '  --max-evidence-age DURATION maximum age of the run: 36h, 7d, 90m, 45s or',
      '                              seconds; no default',
    ]);
  });

  it('breaks a synopsis between its groups, a group too wide for a line inside it', () => {
    const text = [
      'Usage: sealkit owner verify FILE --expected-sha256 HEX',
      '         [--qualification-owner FILE --qualification-grant FILE --execution-grant FILE] [--bare] [--json]',
    ].join('\n');
    expect(fitColumns(text).split('\n')).toEqual([
      'Usage: sealkit owner verify FILE --expected-sha256 HEX',
      '         [--qualification-owner FILE --qualification-grant FILE',
      '          --execution-grant FILE]',
      '         [--bare] [--json]',
    ]);
  });

  it('breaks an example between shell words, never inside a quoted one nor between a flag and its value', () => {
    const text =
      "  sealkit contract publish retail --resource retail.source.orders --approve-widening retail.source.orders@1.4.0 --approver 'Ada Steward' --reason 'Wholesale orders'";
    const fitted = fitColumns(text);
    expect(fitted.split('\n')).toEqual([
      '  sealkit contract publish retail --resource retail.source.orders \\',
      "      --approve-widening retail.source.orders@1.4.0 --approver 'Ada Steward' \\",
      "      --reason 'Wholesale orders'",
    ]);
    expect(shellWords(fitted)).toEqual(shellWords(text));
  });

  it('regression: carries a comment after a command on under itself, never with a backslash (it pasted as a command)', () => {
    const text = [
      '  eval "$(sealkit completion bash)"                 # this bash session; add it to ~/.bashrc to keep it',
      "  sealkit completion bash > ~/.sealkit.bash         # or once, with 'source ~/.sealkit.bash' in ~/.bashrc",
    ].join('\n');
    expect(fitColumns(text).split('\n')).toEqual([
      '  eval "$(sealkit completion bash)"                 # this bash session; add it',
      '                                                    # to ~/.bashrc to keep it',
      "  sealkit completion bash > ~/.sealkit.bash         # or once, with 'source",
      "                                                    # ~/.sealkit.bash' in",
      '                                                    # ~/.bashrc',
    ]);
  });

  it('regression: keeps the blank line before a paragraph it reflows (the paragraphs ran together)', () => {
    const long = 'word '.repeat(20).trim();
    expect(
      fitColumns(`Flags:\n  --json  print one JSON object\n\n${long}\n\nExit codes: 0`).split('\n'),
    ).toEqual([
      'Flags:',
      '  --json  print one JSON object',
      '',
      'word word word word word word word word word word word word word word word word',
      'word word word word',
      '',
      'Exit codes: 0',
    ]);
  });

  it('never breaks a command named in prose between its words', () => {
    const text = `${'x'.repeat(65)} sealkit json digest --python FILE gives its SHA-256`;
    expect(fitColumns(text).split('\n')).toEqual([
      'x'.repeat(65),
      'sealkit json digest --python FILE gives its SHA-256',
    ]);
  });

  it('puts a description under a term too wide to leave it a column', () => {
    const text = `  ${'fixtures/migration_bronze/'.repeat(2)}t.csv     synthetic Bronze rows per table, for the fixtures`;
    expect(fitColumns(text).split('\n')).toEqual([
      `  ${'fixtures/migration_bronze/'.repeat(2)}t.csv`,
      '      synthetic Bronze rows per table, for the fixtures',
    ]);
  });

  it('never breaks a word wider than the line', () => {
    const path = `  /${'very-long-folder/'.repeat(6)}docs/`;
    expect(fitColumns(path)).toBe(path);
  });

  describe.each(COMMANDS.map((entry) => [entry.path.join(' '), entry] as const))(
    'sealkit %s --help',
    (_, entry) => {
      it('keeps every word, and every example pastes as the same command', async () => {
        const { usage } = await entry.load();
        const fitted = fitColumns(usage);
        expect(words(fitted.replace(/ \\\n/g, '\n'))).toEqual(words(usage));
        const examples = (text: string) => text.slice(text.indexOf('\nExamples:'));
        expect(shellWords(examples(fitted))).toEqual(shellWords(examples(usage)));
        for (const line of fitted.split('\n')) {
          if (line.trim().includes(' ')) expect(line.length, line).toBeLessThanOrEqual(80);
          // A backslash at the end of a comment continues nothing.
          if (/(^|\s)#/.test(line)) expect(line.endsWith(' \\'), line).toBe(false);
        }
      });
    },
  );
});
