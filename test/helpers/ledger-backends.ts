import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { connectionOver, type LedgerConnection } from '../../src/contracts/publication/connection.js';
import { pgLedgerSession } from '../../src/contracts/publication/pg-session.js';
import { pgliteLedgerSession } from '../../src/contracts/publication/pglite-session.js';
import { LEDGER_PUBLISHER_ROLE } from '../../src/contracts/publication/schema.js';
import type { LedgerSession } from '../../src/contracts/publication/session.js';
import { type PostgresServer, startPostgres } from '../services/postgres.js';

/**
 * The two real ledger backends the same suite runs on: PGlite (embedded
 * PostgreSQL 18 in WASM, one instance per test file: its cold start is
 * seconds) and a real PostgreSQL 15 server (one per file, a fresh database
 * per test).
 */
export interface TestLedger {
  /** The owner's (superuser's) connection: what sealkit publishes through in these tests. */
  readonly owner: LedgerConnection;
  /** A second, independent connection as the owner (PostgreSQL only: PGlite has one connection). */
  connectAgain(): Promise<LedgerConnection>;
  /**
   * Runs `work` as the publisher role, which holds only SELECT and INSERT
   * (a separate login on PostgreSQL, SET ROLE on PGlite).
   */
  asPublisher<T>(work: (session: LedgerSession) => Promise<T>): Promise<T>;
  /** Runs `work` with the append-only triggers bypassed, as a superuser would tamper. */
  tamper(work: (session: LedgerSession) => Promise<void>): Promise<void>;
  dispose(): Promise<void>;
}

export interface LedgerBackend {
  readonly name: 'pglite' | 'postgres';
  start(): Promise<void>;
  fresh(): Promise<TestLedger>;
  stop(): Promise<void>;
}

async function bypassingTriggers(session: LedgerSession, work: (session: LedgerSession) => Promise<void>) {
  await session.query('SET session_replication_role = replica');
  try {
    await work(session);
  } finally {
    await session.query('SET session_replication_role = origin');
  }
}

export function pgliteBackend(): LedgerBackend {
  let db: PGlite | undefined;
  const session = () => pgliteLedgerSession(db as PGlite);
  return {
    name: 'pglite',
    async start() {
      db = await PGlite.create();
      await db.query(`CREATE ROLE ${LEDGER_PUBLISHER_ROLE} NOLOGIN`);
    },
    async fresh() {
      const s = session();
      // A test that failed inside a transaction must not leak it into the next one.
      await s.query('ROLLBACK').catch(() => undefined);
      await s.query('RESET ROLE');
      await s.query('SET session_replication_role = origin');
      await s.query('DROP SCHEMA IF EXISTS sealkit_ledger CASCADE');
      const owner = connectionOver('pglite', s, async () => undefined);
      return {
        owner,
        async connectAgain() {
          throw new Error('PGlite has a single connection');
        },
        async asPublisher(work) {
          await s.query(`SET ROLE ${LEDGER_PUBLISHER_ROLE}`);
          try {
            return await work(s);
          } finally {
            await s.query('RESET ROLE');
          }
        },
        tamper: (work) => bypassingTriggers(s, work),
        async dispose() {},
      };
    },
    async stop() {
      await db?.close();
    },
  };
}

export function postgresBackend(): LedgerBackend {
  let server: PostgresServer | undefined;
  let admin: pg.Client | undefined;
  let counter = 0;
  const urlOf = (database: string, user = 'postgres') => {
    const url = new URL((server as PostgresServer).url);
    url.username = user;
    url.pathname = `/${database}`;
    return url.toString();
  };
  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  return {
    name: 'postgres',
    async start() {
      server = await startPostgres();
      admin = await connect(server.url);
      await admin.query(`CREATE ROLE ${LEDGER_PUBLISHER_ROLE} LOGIN`);
    },
    async fresh() {
      counter += 1;
      const database = `ledger_${process.pid}_${counter}`;
      await (admin as pg.Client).query(`CREATE DATABASE ${database}`);
      const clients: pg.Client[] = [];
      const open = async (user?: string) => {
        const client = await connect(urlOf(database, user));
        clients.push(client);
        return client;
      };
      const ownerClient = await open();
      const owner = connectionOver('postgres', pgLedgerSession(ownerClient), async () => undefined);
      return {
        owner,
        async connectAgain() {
          const client = await open();
          return connectionOver('postgres', pgLedgerSession(client), async () => {
            await client.end();
          });
        },
        async asPublisher(work) {
          const client = await open(LEDGER_PUBLISHER_ROLE);
          return work(pgLedgerSession(client));
        },
        async tamper(work) {
          const client = await open();
          await bypassingTriggers(pgLedgerSession(client), work);
        },
        async dispose() {
          await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
        },
      };
    },
    async stop() {
      await admin?.end().catch(() => undefined);
      server?.stop();
    },
  };
}
