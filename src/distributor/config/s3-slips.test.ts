// The slips a user new to S3 makes in an S3 destination's bucket:, prefix:
// and endpoint: (an s3:// or https:// address pasted whole, a folder written
// after the bucket, capitals, a blank or missing prefix, an endpoint without
// its scheme, AWS's website or bucket address as the endpoint), through the built CLI
// with the test radosgw as the store: each is refused when the configuration
// is read, at its own line, with the rule it breaks and what to write
// instead, and nothing reaches the bucket.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { listKeys, s3ConfigYaml, useRgwFixture, writeBundle } from '../../../test/helpers/distributor-s3.js';

const ctx = useRgwFixture({ work: 's3-slips-', bucket: 'slips' });

/** Runs `distribute run` (human, then --json) on the test gateway's configuration with one line replaced. */
function runWith(name: string, line: string, replacement: string) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  writeBundle(source, 'weather/brentwood', {
    id: 'weather.daily.brentwood',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Brentwood\n' },
  });
  const yaml = s3ConfigYaml(ctx.rgw, source, { bucket: ctx.bucket, prefix: name });
  expect(yaml).toContain(line);
  writeFileSync(join(dir, 'sealkit.distributor.yaml'), yaml.replace(line, replacement));
  const env = { ...process.env, ...ctx.rgw.awsEnv };
  const human = runCli(['distribute', 'run'], { cwd: dir, env });
  const json = runCli(['distribute', 'run', '--json'], { cwd: dir, env });
  return { human, json };
}

function refusal(code: string, message: string, at: string, key: string, help: string): string {
  return [
    `error[${code}]: ${message}`,
    `  --> sealkit.distributor.yaml:${at}`,
    `  = at: pipelines[0].destinations[0].${key}`,
    `  = help: ${help}`,
    '',
  ].join('\n');
}

const INVALID = 'a configuration value is not allowed';

const CASES: readonly {
  readonly name: string;
  readonly line: (bucket: string, prefix: string) => string;
  readonly replacement: (bucket: string, prefix: string) => string;
  readonly expected: string;
}[] = [
  {
    name: 's3-url',
    line: (bucket) => `bucket: "${bucket}"`,
    replacement: (bucket) => `bucket: s3://${bucket}`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '8:17',
      'bucket',
      'a bucket is a name, not an s3:// URL: write the name alone under bucket: and any folder after it under prefix: (s3://reports/site → bucket: reports, prefix: site)',
    ),
  },
  {
    name: 'https-url',
    line: (bucket) => `bucket: "${bucket}"`,
    replacement: (bucket) => `bucket: https://store.example/${bucket}`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '8:17',
      'bucket',
      "a bucket is a name, not a URL: the store's address goes under endpoint:, the bucket's name alone under bucket:",
    ),
  },
  {
    name: 'folder-in-bucket',
    line: (bucket) => `bucket: "${bucket}"`,
    replacement: (bucket) => `bucket: ${bucket}/weather`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '8:17',
      'bucket',
      "a bucket name has no '/': a folder inside the bucket goes under prefix: (reports/site → bucket: reports, prefix: site)",
    ),
  },
  {
    name: 'capitals',
    line: (bucket) => `bucket: "${bucket}"`,
    replacement: (bucket) => `bucket: ${bucket.toUpperCase()}`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '8:17',
      'bucket',
      'a bucket name has no capital letters: S3 bucket names are lowercase',
    ),
  },
  {
    name: 'underscore',
    line: (bucket) => `bucket: "${bucket}"`,
    replacement: (bucket) => `bucket: ${bucket}_x`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '8:17',
      'bucket',
      "a bucket name is 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter or digit",
    ),
  },
  {
    name: 'blank-prefix',
    line: (_, prefix) => `prefix: "${prefix}"`,
    replacement: () => 'prefix:',
    expected: refusal(
      'config_wrong_type',
      'a configuration value has the wrong type',
      '9:16',
      'prefix',
      "expected a string, found an empty value: write prefix: '' to publish at the bucket's root, or the folder to publish under",
    ),
  },
  {
    name: 'missing-prefix',
    line: (_, prefix) => `        prefix: "${prefix}"\n`,
    replacement: () => '',
    expected: refusal(
      'config_missing_key',
      'the configuration lacks a required key',
      '6:9',
      'prefix',
      "add 'prefix': the folder of the bucket to publish under, or '' for the bucket's root",
    ),
  },
  {
    // The store's address as many tools print it: host and port, no scheme.
    name: 'endpoint-without-scheme',
    line: () => `endpoint: "${ctx.rgw.endpoint}"`,
    replacement: () => `endpoint: ${ctx.rgw.endpoint.replace(/^http:\/\//, '')}`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '10:19',
      'endpoint',
      'an endpoint starts with its scheme: write http:// before the host and port for a store without TLS (http://127.0.0.1:7480), https:// for one with it',
    ),
  },
  {
    name: 'endpoint-s3-url',
    line: () => `endpoint: "${ctx.rgw.endpoint}"`,
    replacement: (bucket) => `endpoint: s3://${bucket}`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '10:19',
      'endpoint',
      "an endpoint is the store's http:// or https:// address, not an s3:// URL: the bucket goes under bucket:, a folder inside it under prefix:",
    ),
  },
  {
    // A static site's own address, pasted from the bucket's website settings.
    name: 'endpoint-website',
    line: () => `endpoint: "${ctx.rgw.endpoint}"`,
    replacement: (bucket) => `endpoint: http://${bucket}.s3-website-eu-west-1.amazonaws.com`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '10:19',
      'endpoint',
      "this is a bucket's website address (s3-website), which serves the published pages but takes no uploads: leave endpoint: out to publish to AWS S3 (region: finds it)",
    ),
  },
  {
    name: 'endpoint-bucket-host',
    line: () => `endpoint: "${ctx.rgw.endpoint}"`,
    replacement: (bucket) => `endpoint: https://${bucket}.s3.eu-west-1.amazonaws.com/`,
    expected: refusal(
      'config_invalid_value',
      INVALID,
      '10:19',
      'endpoint',
      "the endpoint's host name begins with the bucket, as AWS writes one bucket's address: the bucket goes under bucket: alone; leave endpoint: out to publish to AWS S3 (region: finds it)",
    ),
  },
];

describe('slips in an S3 destination, refused when the configuration is read', () => {
  for (const slip of CASES) {
    it(`regression: ${slip.name} is refused at its line with what to write instead; nothing reaches the bucket`, async () => {
      const { human, json } = runWith(
        slip.name,
        slip.line(ctx.bucket, slip.name),
        slip.replacement(ctx.bucket, slip.name),
      );
      expect(human.status).toBe(2);
      expect(human.stdout.toString('utf8')).toBe('');
      expect(human.stderr.toString('utf8')).toBe(slip.expected);
      expect(json.status).toBe(2);
      const report = JSON.parse(json.stdout.toString('utf8')) as { hint?: string };
      expect(`  = help: ${report.hint}\n`).toBe(slip.expected.slice(slip.expected.indexOf('  = help: ')));
      expect(await listKeys(ctx.s3, ctx.bucket)).toEqual([]);
    });
  }
});
