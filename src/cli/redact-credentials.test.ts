import { describe, expect, it } from 'vitest';
import { redactUrlPasswords } from './redact-credentials.js';

describe('URL passwords in printed text', () => {
  it('masks the password of any scheme, keeps the user, host and path', () => {
    expect(redactUrlPasswords('--> postgres://rev:S3cret%21@127.0.0.1/revdb')).toBe(
      '--> postgres://rev:***@127.0.0.1/revdb',
    );
    expect(redactUrlPasswords('{"path":"postgresql://a:b@h:5432/d?sslmode=require"}')).toBe(
      '{"path":"postgresql://a:***@h:5432/d?sslmode=require"}',
    );
    expect(redactUrlPasswords("unexpected argument 'https://u:p@example.test/x'")).toBe(
      "unexpected argument 'https://u:***@example.test/x'",
    );
    expect(redactUrlPasswords('two: s3://k:s@b and mysql://root:pw@db/x')).toBe(
      'two: s3://k:***@b and mysql://root:***@db/x',
    );
  });

  it('regression: masks a password given as a query parameter', () => {
    expect(redactUrlPasswords('--> postgresql://ci@db.internal/contracts?password=hunter2')).toBe(
      '--> postgresql://ci@db.internal/contracts?password=***',
    );
    expect(redactUrlPasswords('{"path":"postgres://ci@h/d?sslmode=require&password=hunter2&x=1"}')).toBe(
      '{"path":"postgres://ci@h/d?sslmode=require&password=***&x=1"}',
    );
  });

  it.each(['hun/ter2', 'hun#ter2', 'hun?ter2', 'hun@ter2', 'hun:ter2'])(
    'regression: masks the whole of a password typed without percent-encoding (%s)',
    (password) => {
      const shown = redactUrlPasswords(`--> postgres://u:${password}@h/db`);
      expect(shown).toBe('--> postgres://u:***@h/db');
      expect(shown).not.toContain('ter2');
    },
  );

  it('leaves text without a password as it is', () => {
    for (const text of [
      'postgres://rev@127.0.0.1/revdb',
      'postgresql:///contracts?host=/run/postgresql',
      'http://127.0.0.1:7480/bucket',
      'a:b@c without a scheme',
      'error[contract_field_unknown]: a resource file has a key sealkit does not know\n',
    ]) {
      expect(redactUrlPasswords(text)).toBe(text);
    }
  });
});
