import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, startPostgres } from './postgres.js';

describe('the PostgreSQL test service', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(() => server?.stop());

  it('is a real PostgreSQL 15 server reachable over TCP', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const result = await client.query<{ server_version_num: string }>('SHOW server_version_num');
      expect(Number(result.rows[0]?.server_version_num)).toBeGreaterThanOrEqual(150000);
      expect(Number(result.rows[0]?.server_version_num)).toBeLessThan(160000);
    } finally {
      await client.end();
    }
  });
});
