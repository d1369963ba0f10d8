import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Dir, type HeldLock, lockExclusiveNonBlocking, openOrCreateDir } from '../../core/fs/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { connectionOver, type LedgerConnection } from './connection.js';
import { readEmbeddedTemplate, tarHeldDataDir } from './embedded-template.js';
import { EMBEDDED_LEDGER_DIR } from './location.js';
import { pgliteLedgerSession } from './pglite-session.js';
import { refuseLedger } from './refusals.js';

const [SEALKIT_DIR, LEDGER_DIR] = EMBEDDED_LEDGER_DIR;
const LOCK_FILE = 'ledger.lock';

/**
 * PostgreSQL settings for a ledger of a few thousand rows opened by one
 * short-lived process: PGlite's default 128 MB of shared buffers is
 * allocated and zeroed at every start (about 130 MB of memory and a fifth
 * of the start-up time); 8 MB holds a 10,000-entry ledger's table and
 * indexes. See docs/performance.md#a-new-embedded-ledger.
 */
export const EMBEDDED_LEDGER_SETTINGS = ['-c', 'shared_buffers=8MB'] as const;

/** A read-only open refuses any write inside the copy, so nothing can be lost unseen. */
const READ_ONLY_SETTINGS = ['-c', 'default_transaction_read_only=on'] as const;

/**
 * How a new embedded ledger gets its data directory: `template` loads the
 * one shipped with the package (docs/contracts.md#embedded-ledger), `initdb`
 * runs PGlite's initdb (a second PostgreSQL in the same process, as before
 * the template existed; kept for a copy without the template and for the
 * benchmark's comparison). `settings: 'pglite'` keeps PGlite's own defaults.
 */
export interface EmbeddedLedgerStart {
  readonly dataDir: 'template' | 'initdb';
  readonly settings: 'sealkit' | 'pglite';
}

const DEFAULT_START: EmbeddedLedgerStart = { dataDir: 'template', settings: 'sealkit' };

type PGliteClass = typeof import('@electric-sql/pglite').PGlite;

/** PGlite's module and its WebAssembly (9 MB), compiled once per process. */
interface EmbeddedEngine {
  readonly PGlite: PGliteClass;
  readonly wasmModule: WebAssembly.Module;
}

let engine: Promise<EmbeddedEngine> | undefined;

async function loadEngine(): Promise<EmbeddedEngine> {
  // The files PGlite reads itself: its entry resolves to the folder that holds them.
  const folder = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  // Read synchronously so the compilation starts on V8's background threads
  // now, not at the event loop's next turn: a project read whose SQL parses
  // come from the cache runs without yielding until it is done
  // (docs/performance.md#a-new-embedded-ledger).
  const compiling = WebAssembly.compile(readFileSync(join(folder, 'pglite.wasm')));
  const [{ PGlite }, wasmModule] = await Promise.all([import('@electric-sql/pglite'), compiling]);
  return { PGlite, wasmModule };
}

function embeddedEngine(): Promise<EmbeddedEngine> {
  if (engine === undefined) {
    const loading = loadEngine();
    engine = loading;
    // A failure is reported by the open that awaits it; the next open tries again.
    loading.catch(() => {
      if (engine === loading) engine = undefined;
    });
  }
  return engine;
}

/**
 * Starts loading PGlite and compiling its WebAssembly without waiting for
 * either: the compilation runs on V8's background threads while the caller
 * reads and validates the project, so the embedded ledger's start does not
 * wait for it (docs/performance.md#a-new-embedded-ledger). Touches no
 * project file; a later `openEmbeddedLedger` uses what it prepared, and
 * refuses there if it failed. The WebAssembly is compiled with the V8
 * flags set when this is first called.
 */
export function prepareEmbeddedLedger(): void {
  void embeddedEngine();
}

/**
 * Opens PGlite (embedded PostgreSQL) in `<project>/.sealkit/ledger`. Only one
 * process may have it open: an exclusive lock on `.sealkit/ledger.lock` is
 * held until `close()`. The folders are reached through held descriptors
 * without following symlinks, and PGlite is given the held `.sealkit`
 * directory's /proc path, so a swapped path cannot redirect it. With
 * `create: false` a missing ledger is refused and nothing is created.
 *
 * With `readOnly: true` (history, replay, a dry run) the ledger's files are
 * only read: PGlite runs on a private in-memory copy of them, taken under
 * the lock, in which every transaction is read-only. The database engine
 * writes nothing back (no checkpoint, no WAL), so a read-only folder works
 * and the files keep their bytes (docs/contracts.md#embedded-ledger).
 */
export async function openEmbeddedLedger(
  projectDir: string,
  options: {
    readonly create: boolean;
    readonly start?: EmbeddedLedgerStart;
    readonly readOnly?: boolean;
  },
): Promise<LedgerConnection> {
  const start = options.start ?? DEFAULT_START;
  const readOnly = options.readOnly === true;
  let snapshot: Uint8Array | undefined;
  let project: Dir | undefined;
  let sealkit: Dir | undefined;
  let lock: HeldLock | undefined;
  let fresh = false;
  const release = () => {
    lock?.release();
    sealkit?.close();
    project?.close();
  };
  try {
    try {
      project = Dir.open(projectDir);
      sealkit = openOrCreateDir(project, SEALKIT_DIR, 0o700, options.create);
      if (sealkit === undefined) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
      const locked = lockExclusiveNonBlocking(sealkit, LOCK_FILE);
      if (locked.kind === 'busy') {
        throw refuseLedger('contract_ledger_busy', {
          role: 'ledger',
          hint: 'another publish, history or replay of this project holds the ledger: try again when it has finished',
        });
      }
      lock = locked.lock;
      const ledger = openOrCreateDir(sealkit, LEDGER_DIR, 0o700, options.create && !readOnly);
      if (ledger === undefined) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
      try {
        fresh = !ledger.list().some((entry) => entry.name === 'PG_VERSION');
        // A folder without a database is no ledger to read (initdb would write one).
        if (readOnly && fresh) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
        if (readOnly) snapshot = tarHeldDataDir(ledger);
      } finally {
        ledger.close();
      }
    } catch (error: unknown) {
      if (error instanceof Refusal) throw error;
      throw refuseLedger('contract_ledger_unavailable', { role: 'ledger' });
    }
    const dataDir = `/proc/self/fd/${sealkit.fd}/${LEDGER_DIR}`;
    let db: import('@electric-sql/pglite').PGlite;
    try {
      const { PGlite, wasmModule } = await embeddedEngine();
      // PGlite runs initdb itself when PG_VERSION is missing; given a
      // template it loads that instead (the same files, unpacked the same
      // way as initdb's output), and refuses one when PG_VERSION exists.
      const template = fresh && start.dataDir === 'template' ? readEmbeddedTemplate() : undefined;
      const settings = [
        ...(start.settings === 'sealkit' ? EMBEDDED_LEDGER_SETTINGS : []),
        ...(readOnly ? READ_ONLY_SETTINGS : []),
      ];
      // A snapshot is loaded into PGlite's in-memory filesystem: nothing is written to the folder.
      const copy =
        snapshot === undefined
          ? undefined
          : new Blob([snapshot as Uint8Array<ArrayBuffer>], { type: 'application/x-tar' });
      snapshot = undefined; // the Blob holds its own bytes; let these go before PGlite copies them again
      db = await PGlite.create({
        ...(copy === undefined ? { dataDir } : { loadDataDir: copy }),
        pgliteWasmModule: wasmModule,
        ...(template === undefined ? {} : { loadDataDir: template }),
        ...(settings.length === 0 ? {} : { startParams: [...PGlite.defaultStartParams, ...settings] }),
      });
    } catch {
      throw refuseLedger('contract_ledger_unavailable', { role: 'ledger' });
    }
    const held = release;
    return connectionOver('pglite', pgliteLedgerSession(db), async () => {
      try {
        await db.close();
      } finally {
        held();
      }
    });
  } catch (error: unknown) {
    release();
    throw error;
  }
}
