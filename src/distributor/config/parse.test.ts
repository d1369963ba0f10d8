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
  ['broken YAML', 'pipelines: [\n', 'config_not_yaml'],
  ['a list at the top', '- 1\n', 'config_wrong_type'],
];

describe('distributor configuration', () => {
  it('reads a valid file and resolves relative roots against its directory', () => {
    const config = parseConfig(Buffer.from(VALID), '/base/dir');
    expect(config.pipelines[0]?.source.root).toBe('/base/dir/reports');
    expect(config.pipelines[0]?.destinations).toEqual([
      { id: 'site', kind: 'local', root: '/srv/site', outputs: { source: false, html: true } },
      {
        id: 'archive',
        kind: 's3',
        bucket: 'report-archive',
        prefix: 'weather/daily',
        endpoint: 'http://127.0.0.1:7480',
        region: 'us-east-1',
        force_path_style: true,
        outputs: { source: true, html: false },
      },
    ]);
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
