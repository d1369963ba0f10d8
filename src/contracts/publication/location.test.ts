import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerLocation } from './location.js';
import { ledgerServerShown, openPostgresLedger, postgresConfig } from './open-postgres.js';

describe('where the ledger is', () => {
  const env = {
    SEALKIT_LEDGER_URL: 'postgresql://from-sealkit/db',
    DATABASE_URL: 'postgres://from-database/db',
  };

  it('takes --ledger, else SEALKIT_LEDGER_URL, else DATABASE_URL, else the embedded ledger', () => {
    expect(ledgerLocation('postgres://flag/db', 'p', env)).toEqual({
      kind: 'postgres',
      url: 'postgres://flag/db',
      from: '--ledger',
    });
    expect(ledgerLocation(undefined, 'p', env)).toEqual({
      kind: 'postgres',
      url: env.SEALKIT_LEDGER_URL,
      from: 'SEALKIT_LEDGER_URL',
    });
    expect(ledgerLocation(undefined, 'p', { DATABASE_URL: env.DATABASE_URL })).toEqual({
      kind: 'postgres',
      url: env.DATABASE_URL,
      from: 'DATABASE_URL',
    });
    expect(ledgerLocation(undefined, 'p', { SEALKIT_LEDGER_URL: '', DATABASE_URL: '' })).toEqual({
      kind: 'embedded',
      projectDir: 'p',
    });
  });

  it('shows the server a URL names without its password or parameters; a socket as libpq writes it (regression: was me@/run/postgresql:5432/contracts, no URL)', async () => {
    const url = 'postgres://ci:zq%2Fsecret@db.internal:5433/contracts?sslmode=disable&password=zqParam';
    expect(await ledgerServerShown(url, {})).toBe('ci@db.internal:5433/contracts');
    expect(
      await ledgerServerShown('postgres:///contracts', { PGHOST: '/run/postgresql', PGUSER: 'me' }),
    ).toBe('me@/contracts?host=/run/postgresql&port=5432');
    expect(await ledgerServerShown('postgres://db/%zz', {})).toBeUndefined();
  });

  it('accepts both schemes and a URL that leaves the host to PGHOST; refuses other schemes', () => {
    expect(ledgerLocation('postgresql:///contracts', 'p', {}).kind).toBe('postgres');
    // Regression: a user and a socket folder with no host, as libpq reads it, was refused.
    expect(ledgerLocation('postgres://ci@/contracts?host=/run/postgresql&port=5433', 'p', {})).toEqual({
      kind: 'postgres',
      url: 'postgres://ci@/contracts?host=/run/postgresql&port=5433',
      from: '--ledger',
    });
    for (const bad of ['mysql://root@db/x', 'not a url', 'http://db/x']) {
      expect(() => ledgerLocation(bad, 'p', {})).toThrow(
        expect.objectContaining({ code: 'contract_ledger_location_invalid' }),
      );
    }
    expect(() => ledgerLocation(undefined, 'p', { DATABASE_URL: 'mysql://x' })).toThrow(
      expect.objectContaining({ code: 'contract_ledger_location_invalid' }),
    );
  });
});

describe('the node-postgres configuration of a ledger URL', () => {
  const saved = { PGPASSFILE: process.env.PGPASSFILE, PGPASSWORD: process.env.PGPASSWORD };
  let dir: string | undefined;
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves what the URL does not say to the PG* variables', async () => {
    const { first: config } = await postgresConfig('postgresql:///contracts', {});
    expect(config).not.toHaveProperty('host');
    expect(config).not.toHaveProperty('user');
    expect(config).toMatchObject({ database: 'contracts' });
  });

  it('keeps a password the URL gives, and looks one up in the password file otherwise', async () => {
    delete process.env.PGPASSWORD;
    expect((await postgresConfig('postgres://ci:s3cret@db.internal:6543/contracts')).first).toMatchObject({
      password: 's3cret',
    });
    dir = mkdtempSync(join(tmpdir(), 'sealkit-pgpass-'));
    const file = join(dir, 'pgpass');
    writeFileSync(file, 'other.host:5432:*:*:wrong\ndb.internal:6543:contracts:ci:from-the-file\n');
    chmodSync(file, 0o600);
    process.env.PGPASSFILE = file;
    const { first: config } = await postgresConfig('postgres://ci@db.internal:6543/contracts');
    expect(typeof config.password).toBe('function');
    expect(await (config.password as () => Promise<string>)()).toBe('from-the-file');
    const { first: none } = await postgresConfig('postgres://nobody@db.internal:6543/contracts');
    expect(await (none.password as () => Promise<string>)()).toBe('');
    // libpq ignores a password file that others can read; so does the lookup.
    chmodSync(file, 0o644);
    expect(await (config.password as () => Promise<string>)()).toBe('');
  });

  it('leaves the password to PGPASSWORD when it is set', async () => {
    process.env.PGPASSWORD = 'from-env';
    expect((await postgresConfig('postgres://ci@db.internal/contracts')).first).not.toHaveProperty(
      'password',
    );
  });

  it('reads sslmode, in the URL or PGSSLMODE, as libpq does (regression: require and prefer verified the certificate)', async () => {
    const tls = async (url: string, env: Record<string, string> = {}) => {
      const { first, fallback } = await postgresConfig(url, env);
      const shape = (config: Record<string, unknown> | undefined) => {
        if (config === undefined) return 'none';
        if (config.ssl === false) return 'plain';
        const ssl = config.ssl as { rejectUnauthorized?: boolean; checkServerIdentity?: unknown };
        if (ssl.rejectUnauthorized === false) return 'tls, any certificate';
        return ssl.checkServerIdentity === undefined ? 'tls, verify-full' : 'tls, verify-ca';
      };
      return [shape(first), shape(fallback)];
    };
    const url = 'postgres://ci@db.internal/contracts';
    expect(await tls(url)).toEqual(['plain', 'none']);
    expect(await tls(`${url}?sslmode=disable`)).toEqual(['plain', 'none']);
    expect(await tls(`${url}?sslmode=require`)).toEqual(['tls, any certificate', 'none']);
    expect(await tls(url, { PGSSLMODE: 'require' })).toEqual(['tls, any certificate', 'none']);
    expect(await tls(`${url}?sslmode=prefer`)).toEqual(['tls, any certificate', 'plain']);
    expect(await tls(url, { PGSSLMODE: 'prefer' })).toEqual(['tls, any certificate', 'plain']);
    expect(await tls(url, { PGSSLMODE: 'allow' })).toEqual(['plain', 'tls, any certificate']);
    expect(await tls(`${url}?sslmode=verify-full`)).toEqual(['tls, verify-full', 'none']);
    // The URL's sslmode wins over PGSSLMODE.
    expect(await tls(`${url}?sslmode=disable`, { PGSSLMODE: 'require' })).toEqual(['plain', 'none']);
  });
});

describe('a ledger URL refused before any connection', () => {
  const hintOf = async (url: string) => {
    try {
      await openPostgresLedger(url);
    } catch (error: unknown) {
      return [(error as { code?: string }).code, (error as { hint?: string }).hint];
    }
    return ['accepted'];
  };

  it('regression: a misspelt sslmode gets a did you mean, and an unreadable TLS file is named by its parameter', async () => {
    expect(await hintOf('postgres://ci@127.0.0.1:1/contracts?sslmode=requir')).toEqual([
      'contract_ledger_location_invalid',
      "sslmode (in the URL or PGSSLMODE) takes disable, allow, prefer, require, verify-ca or verify-full: did you mean 'require'?",
    ]);
    const missing = join(tmpdir(), 'zq-no-such-root.crt');
    const [code, hint] = await hintOf(
      `postgres://ci@127.0.0.1:1/contracts?sslmode=verify-full&sslrootcert=${missing}`,
    );
    expect([code, hint]).toEqual([
      'contract_ledger_location_invalid',
      'the file its sslrootcert names cannot be read (no such file): check the path in sslrootcert, and that this account may read the file',
    ]);
    // The path the URL holds is never quoted.
    expect(hint).not.toContain('zq-no-such-root');
  });
});
