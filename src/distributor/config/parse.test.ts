import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { Refusal } from '../../core/refusal/index.js';
import { parseConfig } from './parse.js';
import { configSchemaText, DISTRIBUTOR_CONFIG_SCHEMA } from './schema.js';

const VALID = `pipelines:
  - id: weather-daily
    source:
      root: reports
    destinations:
      - id: site
        kind: local
        root: /srv/site
        outputs: {source: false, html: true}
      - id: archive
        kind: s3
        bucket: report-archive
        prefix: weather/daily
        endpoint: http://127.0.0.1:7480
        region: us-east-1
        force_path_style: true
        outputs: {source: true, html: false}
`;

const SHOWN = 'sealkit.distributor.yaml';

function refusalOf(text: string | Uint8Array): Refusal {
  try {
    parseConfig(typeof text === 'string' ? Buffer.from(text) : text, '/base', SHOWN);
  } catch (error: unknown) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

function codeOf(text: string): string | undefined {
  try {
    parseConfig(Buffer.from(text), '/base');
    return undefined;
  } catch (error: unknown) {
    if (error instanceof Refusal) return error.code;
    throw error;
  }
}

const BROKEN: readonly (readonly [string, string, string])[] = [
  [
    'a duplicate key',
    VALID.replace('    source:\n', '    source:\n      root: other\n'),
    'config_duplicate_key',
  ],
  ['an unknown top-level key', `${VALID}extra: 1\n`, 'config_unknown_key'],
  [
    'an unknown destination key',
    VALID.replace('        root: /srv/site\n', '        root: /srv/site\n        mode: 0755\n'),
    'config_unknown_key',
  ],
  [
    'credentials in the file',
    VALID.replace('        region: us-east-1\n', '        region: us-east-1\n        secret_access_key: x\n'),
    'config_unknown_key',
  ],
  [
    'a string boolean',
    VALID.replace('source: false, html: true', 'source: "false", html: true'),
    'config_wrong_type',
  ],
  [
    'yes as a boolean',
    VALID.replace('source: false, html: true', 'source: yes, html: true'),
    'config_wrong_type',
  ],
  [
    'no output category',
    VALID.replace('source: false, html: true', 'source: false, html: false'),
    'config_invalid_value',
  ],
  [
    'no output category, assets off too',
    VALID.replace('source: false, html: true', 'source: false, html: false, assets: false'),
    'config_invalid_value',
  ],
  [
    'a language that is not a tag',
    VALID.replace('source: false, html: true', 'source: false, html: {lang: "British English"}'),
    'config_invalid_value',
  ],
  [
    'an unknown key beside lang',
    VALID.replace('source: false, html: true', 'source: false, html: {lang: en, theme: dark}'),
    'config_unknown_key',
  ],
  [
    'an html mapping without lang',
    VALID.replace('source: false, html: true', 'source: false, html: {}'),
    'config_missing_key',
  ],
  [
    'html as a string',
    VALID.replace('source: false, html: true', 'source: false, html: en'),
    'config_wrong_type',
  ],
  [
    'assets as a string',
    VALID.replace('source: false, html: true', 'source: false, html: true, assets: "true"'),
    'config_wrong_type',
  ],
  ['an unknown kind', VALID.replace('kind: local', 'kind: ftp'), 'config_invalid_value'],
  ['a missing kind', VALID.replace('        kind: local\n', ''), 'config_missing_key'],
  ['a missing root', VALID.replace('        root: /srv/site\n', ''), 'config_missing_key'],
  ['an invalid id', VALID.replace('id: site', 'id: "my site"'), 'config_invalid_value'],
  [
    'an invalid bucket',
    VALID.replace('bucket: report-archive', 'bucket: Report_Archive'),
    'config_invalid_value',
  ],
  [
    'a prefix with a trailing slash',
    VALID.replace('prefix: weather/daily', 'prefix: weather/daily/'),
    'config_invalid_value',
  ],
  ['duplicate destination ids', VALID.replace('id: archive', 'id: site'), 'config_duplicate_id'],
  ['no pipelines', 'pipelines: []\n', 'config_invalid_value'],
  [
    'an anchor and alias',
    VALID.replace('outputs: {source: false, html: true}', 'outputs: &o {source: false, html: true}').replace(
      'outputs: {source: true, html: false}',
      'outputs: *o',
    ),
    'config_unsupported_yaml',
  ],
  ['an explicit tag', VALID.replace('root: reports', 'root: !!str reports'), 'config_unsupported_yaml'],
  ['two documents', `${VALID}---\npipelines: []\n`, 'config_unsupported_yaml'],
  [
    'an empty work_dir',
    VALID.replace('root: /srv/site', 'root: /srv/site\n        work_dir: ""'),
    'config_invalid_value',
  ],
  [
    'a work_dir on an S3 destination',
    VALID.replace('prefix: weather/daily', 'prefix: weather/daily\n        work_dir: w'),
    'config_unknown_key',
  ],
  ['broken YAML', 'pipelines: [\n', 'config_not_yaml'],
  ['a list at the top', '- 1\n', 'config_wrong_type'],
];

describe('distributor configuration', () => {
  it('reads a valid file and resolves relative roots against its directory', () => {
    const config = parseConfig(Buffer.from(VALID), '/base/dir');
    expect(config.pipelines[0]?.source.root).toBe('/base/dir/reports');
    expect(config.pipelines[0]?.destinations.map(({ origin: _, ...destination }) => destination)).toEqual([
      {
        id: 'site',
        kind: 'local',
        kind_origin: { line: 7, column: 9, pointer: 'pipelines[0].destinations[0].kind' },
        root: '/srv/site',
        shown_root: '/srv/site',
        written_root: '/srv/site',
        root_origin: { line: 8, column: 9, pointer: 'pipelines[0].destinations[0].root' },
        outputs: { source: false, html: true },
      },
      {
        id: 'archive',
        kind: 's3',
        kind_origin: { line: 11, column: 9, pointer: 'pipelines[0].destinations[1].kind' },
        bucket: 'report-archive',
        bucket_origin: { line: 12, column: 9, pointer: 'pipelines[0].destinations[1].bucket' },
        prefix: 'weather/daily',
        prefix_origin: { line: 13, column: 9, pointer: 'pipelines[0].destinations[1].prefix' },
        endpoint: 'http://127.0.0.1:7480',
        endpoint_origin: { line: 14, column: 9, pointer: 'pipelines[0].destinations[1].endpoint' },
        region: 'us-east-1',
        region_origin: { line: 15, column: 9, pointer: 'pipelines[0].destinations[1].region' },
        force_path_style: true,
        outputs: { source: true, html: false },
      },
    ]);
  });

  it('regression: keeps the line and column of each S3 key, for refusals about that setting', () => {
    // One flow mapping on one line: only the column tells the keys apart.
    const text = VALID.slice(0, VALID.indexOf('      - id: archive')).concat(
      '      - {id: archive, kind: s3, bucket: b-1, prefix: p, endpoint: http://h:1, region: r-1,\n',
      '         outputs: {source: true, html: false}}\n',
    );
    const archive = parseConfig(Buffer.from(text), '/b', SHOWN).pipelines[0]?.destinations[1];
    const at = (column: number, key: string) => ({
      path: SHOWN,
      line: 10,
      column,
      pointer: `pipelines[0].destinations[1].${key}`,
    });
    expect(archive).toMatchObject({
      origin: { path: SHOWN, line: 10, column: 9, pointer: 'pipelines[0].destinations[1]' },
      kind_origin: at(23, 'kind'),
      bucket_origin: at(33, 'bucket'),
      prefix_origin: at(46, 'prefix'),
      endpoint_origin: at(57, 'endpoint'),
      region_origin: at(79, 'region'),
    });
  });

  it('keeps no origin of an optional S3 key that is not written', () => {
    const text = VALID.replace('        endpoint: http://127.0.0.1:7480\n', '').replace(
      '        region: us-east-1\n',
      '',
    );
    const archive = parseConfig(Buffer.from(text), '/b').pipelines[0]?.destinations[1];
    expect(Object.keys(archive ?? {}).filter((key) => key.endsWith('_origin'))).toEqual([
      'kind_origin',
      'bucket_origin',
      'prefix_origin',
    ]);
  });

  it('reads work_dir of a local destination, resolved like its root', () => {
    const text = VALID.replace('root: /srv/site', 'root: /srv/site\n        work_dir: ../work');
    const site = parseConfig(Buffer.from(text), '/base/dir').pipelines[0]?.destinations[0];
    expect(site).toMatchObject({ id: 'site', root: '/srv/site', work_dir: '/base/work' });
  });

  it.each([
    ['english', "did you mean 'en'?"],
    ['deutsch', "did you mean 'de'?"],
    ['xx', 'a language tag such as en, en-GB or de-CH (BCP 47)'],
    ['en_GB', "write 'en-GB': language tags join their parts with a hyphen"],
  ])('regression: lang %s is refused, with advice, not written into every page', (lang, advice) => {
    const refusal = refusalOf(
      VALID.replace('source: false, html: true', `source: false, html: {lang: ${lang}}`),
    );
    expect(refusal.code).toBe('config_invalid_value');
    expect(refusal.location?.pointer).toBe('pipelines[0].destinations[0].outputs.html.lang');
    expect(refusal.hint).toContain(advice);
  });

  it.each(['en', 'en-GB', 'de-CH', 'zh-Hant-TW', 'sr-Latn', 'fil', 'gsw'])('accepts lang %s', (lang) => {
    const site = parseConfig(
      Buffer.from(VALID.replace('source: false, html: true', `source: false, html: {lang: ${lang}}`)),
      '/b',
    ).pipelines[0]?.destinations[0];
    expect(site?.outputs).toMatchObject({ html: true, lang });
  });

  it('reads html: {lang} and assets, and keeps html: true valid', () => {
    const outputsOf = (outputs: string) =>
      parseConfig(Buffer.from(VALID.replace('outputs: {source: false, html: true}', outputs)), '/b')
        .pipelines[0]?.destinations[0]?.outputs;
    expect(outputsOf('outputs: {source: false, html: {lang: en-GB}, assets: true}')).toEqual({
      source: false,
      html: true,
      assets: true,
      lang: 'en-GB',
    });
    expect(outputsOf('outputs: {source: false, html: true, assets: false}')).toEqual({
      source: false,
      html: true,
    });
    expect(outputsOf('outputs: {source: false, html: false, assets: true}')).toEqual({
      source: false,
      html: false,
      assets: true,
    });
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(DISTRIBUTOR_CONFIG_SCHEMA);
    for (const outputs of [
      'outputs: {source: false, html: {lang: en-GB}, assets: true}',
      'outputs: {source: false, html: false, assets: true}',
      'outputs: {source: false, html: {lang: de}}',
    ]) {
      expect(validate(parseYaml(VALID.replace('outputs: {source: false, html: true}', outputs)))).toBe(true);
    }
  });

  it('names a mistyped lang key and a bad language tag where they are', () => {
    const typo = refusalOf(VALID.replace('source: false, html: true', 'source: false, html: {lang_: en}'));
    expect(typo.code).toBe('config_unknown_key');
    expect(typo.location?.pointer).toBe('pipelines[0].destinations[0].outputs.html.lang_');
    expect(typo.hint).toBe("did you mean 'lang'?");
    const tag = refusalOf(VALID.replace('source: false, html: true', 'source: false, html: {lang: en_GB}'));
    expect(tag.toJSON()).toMatchObject({
      reason_code: 'config_invalid_value',
      location: { path: SHOWN, line: 9, pointer: 'pipelines[0].destinations[0].outputs.html.lang' },
      hint: "write 'en-GB': language tags join their parts with a hyphen",
    });
  });

  it('keeps where each pipeline and destination is written, and the root as the user would type it', () => {
    const config = parseConfig(Buffer.from(VALID), '/base/conf', 'conf/sealkit.distributor.yaml');
    const pipeline = config.pipelines[0];
    expect(pipeline?.source).toEqual({
      root: '/base/conf/reports',
      shown: 'conf/reports',
      // As the file writes it, for a hint in the file's own terms.
      written: 'reports',
      root_origin: {
        path: 'conf/sealkit.distributor.yaml',
        line: 4,
        column: 7,
        pointer: 'pipelines[0].source.root',
      },
    });
    expect(pipeline?.origin).toEqual({
      path: 'conf/sealkit.distributor.yaml',
      line: 2,
      column: 5,
      pointer: 'pipelines[0]',
    });
    expect(pipeline?.destinations[1]?.origin).toEqual({
      path: 'conf/sealkit.distributor.yaml',
      line: 10,
      column: 9,
      pointer: 'pipelines[0].destinations[1]',
    });
  });

  it('regression: an id YAML reads as a number or a boolean says to quote it', () => {
    const number = refusalOf(VALID.replace('id: weather-daily', 'id: 2026'));
    expect(number.code).toBe('config_wrong_type');
    expect(number.hint).toBe('expected a string, found a number; write it in quotes to make it text: "2026"');
    // Quoting is suggested with the text only when that text is digits, which an id may be.
    expect(refusalOf(VALID.replace('id: weather-daily', 'id: -5')).hint).toBe(
      'expected a string, found a number; write it in quotes if it is meant as text',
    );
    const boolean = refusalOf(VALID.replace('id: site', 'id: true'));
    expect(boolean.hint).toBe(
      'expected a string, found true or false; write it in quotes if it is meant as text',
    );
  });

  it('regression: a BOM is refused as config_not_yaml instead of silently stripped', () => {
    const refusal = refusalOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)]));
    expect(refusal.code).toBe('config_not_yaml');
    expect(refusal.location).toEqual({ path: SHOWN, line: 1, column: 1 });
    expect(refusal.hint).toContain('byte order mark');
  });

  it('names an unknown key with its file, position, key path and the allowed key it is near', () => {
    const refusal = refusalOf(VALID.replace('source: false, html: true', 'source: false, htm: true'));
    expect(refusal.toJSON()).toEqual({
      reason_code: 'config_unknown_key',
      category: 'malformed',
      message: 'the configuration has a key sealkit does not know',
      role: 'config',
      location: { path: SHOWN, line: 9, column: 34, pointer: 'pipelines[0].destinations[0].outputs.htm' },
      hint: "did you mean 'html'?",
    });
    // One typo is one error: the `html` it replaces is not reported missing as well.
    expect(refusal.also).toEqual([]);
  });

  it('regression: a missing output category says what each value means (was only "add \'html\'")', () => {
    const html = refusalOf(VALID.replace('source: false, html: true', 'source: true'));
    expect([html.code, html.location?.pointer, html.hint]).toEqual([
      'config_missing_key',
      'pipelines[0].destinations[0].outputs.html',
      "add 'html: true' (a page for each .md file) or 'html: false'",
    ]);
    const source = refusalOf(VALID.replace('source: false, html: true', 'html: true'));
    expect([source.code, source.location?.pointer, source.hint]).toEqual([
      'config_missing_key',
      'pipelines[0].destinations[0].outputs.source',
      "add 'source: true' (the bundle's files as they are) or 'source: false'",
    ]);
  });

  it('regression: keys that would hold credentials are told where credentials go, never echoing the value (were "allowed keys here")', () => {
    for (const key of ['aws_access_key_id', 'secret_access_key', 'Access-Key-Id']) {
      const refusal = refusalOf(
        VALID.replace('        region: us-east-1\n', `        ${key}: AKIASENTINEL\n`),
      );
      expect(refusal.code).toBe('config_unknown_key');
      expect(refusal.hint).toBe(
        'credentials never go in this file: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, in the environment, or use ~/.aws files or an instance role',
      );
      expect(JSON.stringify(refusal.toJSON())).not.toContain('AKIASENTINEL');
    }
    const profile = refusalOf(VALID.replace('        region: us-east-1\n', '        profile: partner\n'));
    expect(profile.hint).toContain('set AWS_PROFILE for the run');
  });

  it('regression: an s3:// URL as prefix is said to be one (was "no empty segment")', () => {
    const refusal = refusalOf(VALID.replace('prefix: weather/daily', 'prefix: s3://reports/site'));
    expect(refusal.code).toBe('config_invalid_value');
    expect(refusal.hint).toBe(
      'a prefix is a folder in the bucket, not an s3:// URL: write the bucket under bucket: and the folder after it under prefix: (s3://reports/site → bucket: reports, prefix: site)',
    );
  });

  it('lists the allowed keys when no allowed key is near the unknown one', () => {
    const refusal = refusalOf(VALID.replace('        region: us-east-1\n', '        colour: red\n'));
    expect(refusal.location?.pointer).toBe('pipelines[0].destinations[1].colour');
    expect(refusal.hint).toBe(
      'allowed keys here: id, kind, bucket, prefix, outputs, endpoint, region, force_path_style, cache_control, connect_timeout_seconds, request_timeout_seconds',
    );
  });

  it('regression: a mistyped kind still lets the shared keys be checked, in the same run', () => {
    const text = VALID.replace('kind: local', 'kind: locl').replace(
      'source: false, html: true',
      'source: false, htm: true, assets: yes',
    );
    const refusal = refusalOf(text);
    expect([refusal, ...refusal.also].map((one) => [one.code, one.location?.pointer, one.hint])).toEqual([
      ['config_invalid_value', 'pipelines[0].destinations[0].kind', "did you mean 'local'?"],
      ['config_unknown_key', 'pipelines[0].destinations[0].outputs.htm', "did you mean 'html'?"],
      ['config_wrong_type', 'pipelines[0].destinations[0].outputs.assets', expect.any(String)],
    ]);
  });

  it('regression: the bucket written into the endpoint is refused at the endpoint, a proxy path is not', () => {
    const refusal = refusalOf(VALID.replace('http://127.0.0.1:7480', 'http://127.0.0.1:7480/report-archive'));
    expect([refusal.code, refusal.location?.pointer, refusal.hint]).toEqual([
      'config_invalid_value',
      'pipelines[0].destinations[1].endpoint',
      "the endpoint is the store's address only (scheme, host and port): the bucket goes in bucket:, not in the endpoint's path",
    ]);
    expect(refusal.also).toEqual([]);
    const proxied = parseConfig(
      Buffer.from(VALID.replace('http://127.0.0.1:7480', 'https://gateway.internal/s3')),
      '/base',
    );
    expect(proxied.pipelines[0]?.destinations[1]).toMatchObject({ endpoint: 'https://gateway.internal/s3' });
  });

  it('regression: a misspelt kind holds the keys to the kind it was meant to be, in the same run', () => {
    // `outptus` was reported only once `kind` was fixed.
    const text = VALID.replace('kind: local', 'kind: locall').replace(
      '        root: /srv/site\n        outputs:',
      '        root: /srv/site\n        outptus:',
    );
    const refusal = refusalOf(text);
    expect([refusal, ...refusal.also].map((one) => [one.code, one.location?.pointer, one.hint])).toEqual([
      ['config_invalid_value', 'pipelines[0].destinations[0].kind', "did you mean 'local'?"],
      // The misspelt key is the missing `outputs`: one error, which names the key to write.
      ['config_unknown_key', 'pipelines[0].destinations[0].outptus', "did you mean 'outputs'?"],
    ]);
  });

  it('reports every independent error at once: two unknown keys in two destinations and a bad bucket', () => {
    const text = VALID.replace('source: false, html: true', 'source: false, htm: true')
      .replace('bucket: report-archive', 'bucket: Report_Archive')
      .replace('outputs: {source: true, html: false}', 'outputs: {sorce: true, html: false}');
    const refusal = refusalOf(text);
    const all = [refusal, ...refusal.also].map((one) => [
      one.code,
      one.location?.pointer,
      one.location?.line,
    ]);
    expect(all).toEqual([
      ['config_unknown_key', 'pipelines[0].destinations[0].outputs.htm', 9],
      ['config_invalid_value', 'pipelines[0].destinations[1].bucket', 12],
      ['config_unknown_key', 'pipelines[0].destinations[1].outputs.sorce', 17],
    ]);
    expect(refusal.omitted).toBe(0);
  });

  it('regression: errors are listed in file order, so the reason code is the first one in the file', () => {
    // `wrk_dir` (line 10) came before `outputs.htm` (line 9): keys were checked before the values below them.
    const text = [
      'pipelines:',
      '  - id: p',
      '    source: {root: src}',
      '    destinations:',
      '      - id: site',
      '        kind: local',
      '        root: site',
      '        outputs:',
      '          htm: true',
      '        wrk_dir: w',
      '',
    ].join('\n');
    const refusal = refusalOf(text);
    expect(
      [refusal, ...refusal.also].map((one) => [one.code, one.location?.line, one.location?.column]),
    ).toEqual([
      ['config_unknown_key', 9, 11],
      ['config_missing_key', 9, 11],
      ['config_unknown_key', 10, 9],
    ]);
  });

  it('reports at most 50 errors (60 here), then how many more there are', () => {
    const extra = Array.from({ length: 60 }, (_, index) => `extra${index}: 1\n`).join('');
    const refusal = refusalOf(`${VALID}${extra}`);
    expect(refusal.also).toHaveLength(49);
    expect(refusal.omitted).toBe(10);
  });

  /** The refusal of `text`: its code, its place in SHOWN and its hint. */
  const expectRefusal = (
    text: string,
    code: string,
    at: { readonly line: number; readonly column: number; readonly pointer: string },
    hint: string,
  ): void => {
    const refusal = refusalOf(text);
    expect(refusal.code).toBe(code);
    expect(refusal.location).toEqual({ path: SHOWN, ...at });
    expect(refusal.hint).toBe(hint);
  };

  it('puts a missing key in the pointer and a mistyped value at its own position', () => {
    expectRefusal(
      VALID.replace('        root: /srv/site\n', ''),
      'config_missing_key',
      { line: 6, column: 9, pointer: 'pipelines[0].destinations[0].root' },
      "add 'root'",
    );
    expectRefusal(
      VALID.replace('force_path_style: true', 'force_path_style: yes'),
      'config_wrong_type',
      { line: 16, column: 27, pointer: 'pipelines[0].destinations[1].force_path_style' },
      "expected true or false, found the string 'yes' (YAML 1.2 reads yes, no, on and off as strings: write true or false)",
    );
    expectRefusal(
      VALID.replace('force_path_style: true', 'force_path_style: "true"'),
      'config_wrong_type',
      { line: 16, column: 27, pointer: 'pipelines[0].destinations[1].force_path_style' },
      'expected true or false, found a string: write true without quotes',
    );
  });

  it('regression: a misspelt true or false is named, not only "found a string"', () => {
    expectRefusal(
      VALID.replace('force_path_style: true', 'force_path_style: ture'),
      'config_wrong_type',
      { line: 16, column: 27, pointer: 'pipelines[0].destinations[1].force_path_style' },
      'expected true or false, found a string: did you mean true?',
    );
    expectRefusal(
      VALID.replace('force_path_style: true', 'force_path_style: fasle'),
      'config_wrong_type',
      { line: 16, column: 27, pointer: 'pipelines[0].destinations[1].force_path_style' },
      'expected true or false, found a string: did you mean false?',
    );
    // html takes a mapping too: the same word is meant.
    const html = refusalOf(VALID.replace('html: false', 'html: flase'));
    expect([html.location?.pointer, html.hint]).toEqual([
      'pipelines[0].destinations[1].outputs.html',
      'expected true, false or a mapping such as {lang: en}, found a string: did you mean false?',
    ]);
    // regression: html's yes, no, on and off were "found a string", where every other boolean said why.
    for (const word of ['no', 'off', 'yes']) {
      const yaml11 = refusalOf(VALID.replace('html: false', `html: ${word}`));
      expect([yaml11.code, yaml11.location?.pointer, yaml11.hint]).toEqual([
        'config_wrong_type',
        'pipelines[0].destinations[1].outputs.html',
        `expected true, false or a mapping such as {lang: en}, found the string '${word}' (YAML 1.2 reads yes, no, on and off as strings: write true or false)`,
      ]);
    }
    // A word that is no typo of either is not guessed at.
    expect(refusalOf(VALID.replace('force_path_style: true', 'force_path_style: maybe')).hint).toBe(
      'expected true or false, found a string',
    );
  });

  it('refuses a repeated id at the repeat and names the first', () => {
    expectRefusal(
      VALID.replace('id: archive', 'id: site'),
      'config_duplicate_id',
      { line: 10, column: 13, pointer: 'pipelines[0].destinations[1].id' },
      'pipelines[0].destinations[0] has the same id',
    );
  });

  it('locates YAML faults: a duplicate key and a second document', () => {
    const duplicate = refusalOf(VALID.replace('    source:\n', '    source:\n      root: other\n'));
    expect(duplicate).toMatchObject({ code: 'config_duplicate_key', location: { path: SHOWN, line: 5 } });
    const two = refusalOf(
      VALID.replace('    source:\n', '    source:\n      root: other\n').replace(
        '        kind: local\n',
        '        kind: local\n        kind: s3\n',
      ),
    );
    expect([two, ...two.also].map((refusal) => [refusal.code, refusal.location?.line])).toEqual([
      ['config_duplicate_key', 5],
      ['config_duplicate_key', expect.any(Number)],
    ]);
    const second = refusalOf(`${VALID}---\npipelines: []\n`);
    expect(second).toMatchObject({ code: 'config_unsupported_yaml', location: { path: SHOWN, line: 18 } });
  });

  // Values that can never work were refused only later, as destination_unreachable.
  const S3_VALUES: readonly (readonly [string, string, string, number, string])[] = [
    [
      'region',
      'region: us-east-1',
      'region: eu central',
      17,
      "a region is lowercase letters, digits and '-', such as eu-central-1 or us-east-1",
    ],
    [
      'region',
      'region: us-east-1',
      'region: EU-CENTRAL-1',
      17,
      "a region is lowercase letters, digits and '-', such as eu-central-1 or us-east-1",
    ],
    [
      'bucket',
      'bucket: report-archive',
      'bucket: report..archive',
      17,
      "a bucket name has no two '.' in a row",
    ],
    [
      'bucket',
      'bucket: report-archive',
      'bucket: report.-archive',
      17,
      "a bucket name has no '-' next to a '.'",
    ],
    [
      'bucket',
      'bucket: report-archive',
      'bucket: report-.archive',
      17,
      "a bucket name has no '-' next to a '.'",
    ],
    ['bucket', 'bucket: report-archive', 'bucket: 192.168.5.4', 17, 'a bucket name is not an IP address'],
    [
      'bucket',
      'bucket: report-archive',
      'bucket: xn--reports',
      17,
      "a bucket name does not begin with 'xn--'",
    ],
    [
      'bucket',
      'bucket: report-archive',
      'bucket: reports-s3alias',
      17,
      "a bucket name does not end with '-s3alias' or '--ol-s3' (those name access points)",
    ],
    [
      'bucket',
      'bucket: report-archive',
      'bucket: reports--ol-s3',
      17,
      "a bucket name does not end with '-s3alias' or '--ol-s3' (those name access points)",
    ],
    [
      'prefix',
      'prefix: weather/daily',
      'prefix: weather//daily',
      17,
      "a prefix has no empty or '.' segment ('a//b', './a', 'a/./b')",
    ],
    [
      'prefix',
      'prefix: weather/daily',
      'prefix: ./weather',
      17,
      "a prefix has no empty or '.' segment ('a//b', './a', 'a/./b')",
    ],
    [
      'prefix',
      'prefix: weather/daily',
      'prefix: weather/./daily',
      17,
      "a prefix has no empty or '.' segment ('a//b', './a', 'a/./b')",
    ],
    ['prefix', 'prefix: weather/daily', 'prefix: weather/../daily', 17, "a prefix has no '..' segment"],
    [
      'prefix',
      'prefix: weather/daily',
      'prefix: /weather',
      17,
      "remove the leading '/': a prefix is a folder inside the bucket, written from its top (weather/daily, not /weather/daily)",
    ],
    [
      'prefix',
      'prefix: weather/daily',
      'prefix: weather/',
      17,
      "remove the trailing '/': sealkit puts the '/' between the prefix and each bundle folder (weather/daily, not weather/daily/)",
    ],
    [
      'prefix',
      'prefix: weather/daily',
      'prefix: "weather\\\\daily"',
      17,
      "a prefix has no leading or trailing '/', no backslash and no control characters",
    ],
    [
      'endpoint',
      'endpoint: http://127.0.0.1:7480',
      'endpoint: http://ak:secret@127.0.0.1:7480',
      19,
      "remove 'user:password@' from the endpoint: credentials never go in this file (environment, ~/.aws files or an instance role supply them)",
    ],
    [
      'endpoint',
      'endpoint: http://127.0.0.1:7480',
      'endpoint: http://127.0.0.1:7480/?x-id=1',
      19,
      "an endpoint has no query ('?…'): scheme, host, port and at most a path",
    ],
    [
      'endpoint',
      'endpoint: http://127.0.0.1:7480',
      'endpoint: http://127.0.0.1:7480/#top',
      19,
      "an endpoint has no fragment ('#…'): scheme, host, port and at most a path",
    ],
  ];

  it.each(S3_VALUES)(
    'regression: refuses an S3 %s that can never work at its line (%s)',
    (key, from, to, column, hint) => {
      const line = VALID.split('\n').findIndex((text) => text.includes(from)) + 1;
      const refusal = refusalOf(VALID.replace(from, to));
      expect(refusal.code).toBe('config_invalid_value');
      expect(refusal.location).toEqual({
        path: SHOWN,
        line,
        column,
        pointer: `pipelines[0].destinations[1].${key}`,
      });
      expect(refusal.hint).toBe(hint);
      expect(refusal.hint).not.toContain('secret');
    },
  );

  it('accepts a prefix with a space in a segment and dotted bucket names within the rules', () => {
    expect(codeOf(VALID.replace('prefix: weather/daily', 'prefix: weather/daily reports'))).toBeUndefined();
    expect(codeOf(VALID.replace('bucket: report-archive', 'bucket: reports.example.com'))).toBeUndefined();
    expect(codeOf(VALID.replace('region: us-east-1', 'region: eu-central-1'))).toBeUndefined();
    expect(
      codeOf(VALID.replace('endpoint: http://127.0.0.1:7480', 'endpoint: https://gateway.internal/s3')),
    ).toBeUndefined();
  });

  it.each(BROKEN)('refuses %s', (_label, text, code) => {
    expect(codeOf(text)).toBe(code);
  });

  it('publishes the current JSON Schema in docs/schemas (regenerate from configSchemaText() when this fails)', () => {
    const published = readFileSync(
      join(REPO_ROOT, 'docs', 'schemas', 'distributor-config.schema.json'),
      'utf8',
    );
    expect(published).toBe(configSchemaText());
  });

  it('agrees with the published JSON Schema on every fixture the schema can judge', () => {
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(DISTRIBUTOR_CONFIG_SCHEMA);
    expect(validate(parseYaml(VALID))).toBe(true);
    // Duplicate keys, YAML features and duplicate ids are beyond JSON Schema; the rest it must refuse too.
    const schemaJudged = BROKEN.filter(
      ([, , code]) =>
        ![
          'config_duplicate_key',
          'config_unsupported_yaml',
          'config_not_yaml',
          'config_duplicate_id',
        ].includes(code),
    );
    for (const [label, text] of schemaJudged) {
      expect({ label, valid: validate(parseYaml(text)) }).toEqual({ label, valid: false });
    }
  });
});
