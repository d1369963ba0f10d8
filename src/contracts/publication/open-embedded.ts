import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  Dir,
  FsError,
  type HeldLock,
  isFsError,
  lockExclusiveNonBlocking,
  lockSharedNonBlocking,
  probeLock,
  writeFailureCause,
} from '../../core/fs/index.js';
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

/** An embedded ledger held open, with whether this open created its folder. */
export interface HeldEmbeddedLedger {
  readonly connection: LedgerConnection;
  /** True when this open created `.sealkit/ledger` (a new ledger). */
  readonly created: boolean;
  /**
   * Closes the ledger and, when this open created its folder, removes that
   * folder (under the lock, so no other process has seen it): for a first
   * publication that did not commit. `.sealkit/` and its lock file stay: a
   * lock file is never deleted (two processes could lock different inodes).
   */
  discard(): Promise<void>;
}

/**
 * Opens PGlite (embedded PostgreSQL) in `<project>/.sealkit/ledger`. Only one
 * process may have it open: an exclusive lock on `.sealkit/ledger.lock` is
 * held until `close()`. The folders are reached through held descriptors
 * without following symlinks, and PGlite is given the held `.sealkit`
 * directory's /proc path, so a swapped path cannot redirect it. With
 * `create: false` a missing ledger is refused and nothing is created, not
 * even `.sealkit/` or its lock file.
 *
 * With `readOnly: true` (history, replay, a dry run) the ledger's files are
 * only read: PGlite runs on a private in-memory copy of them, taken under
 * the lock, in which every transaction is read-only. The database engine
 * writes nothing back (no checkpoint, no WAL), so a read-only folder works
 * and the files keep their bytes (docs/contracts.md#embedded-ledger).
 *
 * A folder or file that cannot be opened is refused as
 * `contract_ledger_unavailable` with the cause from its errno, named by its
 * path under `projectDir` as given (the user's own project folder).
 */
export async function openEmbeddedLedger(
  projectDir: string,
  options: {
    readonly create: boolean;
    readonly start?: EmbeddedLedgerStart;
    readonly readOnly?: boolean;
  },
): Promise<LedgerConnection> {
  return (await holdEmbeddedLedger(projectDir, options)).connection;
}

/** Where opening the ledger's files stopped: what the refusal's hint names. */
type OpenStep =
  | { readonly kind: 'open'; readonly parent: Dir | undefined; readonly name: string; readonly path: string }
  | { readonly kind: 'create'; readonly path: string }
  | { readonly kind: 'read'; readonly parent: Dir | undefined; readonly name: string; readonly path: string };

/** `openEmbeddedLedger`, and whether it created the ledger, with the way to undo that. */
export async function holdEmbeddedLedger(
  projectDir: string,
  options: {
    readonly create: boolean;
    readonly start?: EmbeddedLedgerStart;
    readonly readOnly?: boolean;
  },
): Promise<HeldEmbeddedLedger> {
  const start = options.start ?? DEFAULT_START;
  const readOnly = options.readOnly === true;
  const create = options.create && !readOnly;
  const sealkitPath = join(projectDir, SEALKIT_DIR);
  const ledgerPath = join(sealkitPath, LEDGER_DIR);
  let snapshot: Uint8Array | undefined;
  let project: Dir | undefined;
  let sealkit: Dir | undefined;
  let lock: HeldLock | undefined;
  let fresh = false;
  let created = false;
  const release = () => {
    lock?.release();
    sealkit?.close();
    project?.close();
  };
  let step: OpenStep = { kind: 'open', parent: undefined, name: projectDir, path: projectDir };
  try {
    try {
      project = Dir.open(projectDir);
      step = { kind: 'open', parent: project, name: SEALKIT_DIR, path: sealkitPath };
      sealkit = openChildDir(project, SEALKIT_DIR, create, () => {
        step = { kind: 'create', path: sealkitPath };
      });
      if (sealkit === undefined) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
      // Without `create` nothing is made, not even the lock file: look for the ledger first.
      step = { kind: 'open', parent: sealkit, name: LEDGER_DIR, path: ledgerPath };
      if (!create && !childExists(sealkit, LEDGER_DIR)) {
        // Another process may be creating it right now: that is busy, not missing.
        step = { kind: 'open', parent: sealkit, name: LOCK_FILE, path: join(sealkitPath, LOCK_FILE) };
        if (probeLock(sealkit, LOCK_FILE) === 'held') throw busy();
        throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
      }
      step = { kind: 'open', parent: sealkit, name: LOCK_FILE, path: join(sealkitPath, LOCK_FILE) };
      lock = await lockWithin(sealkit, readOnly ? 'shared' : 'exclusive', LOCK_WAIT_MS);
      step = { kind: 'open', parent: sealkit, name: LEDGER_DIR, path: ledgerPath };
      const ledger = openChildDir(sealkit, LEDGER_DIR, create, () => {
        step = { kind: 'create', path: ledgerPath };
        created = true;
      });
      if (ledger === undefined) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
      try {
        step = { kind: 'read', parent: sealkit, name: LEDGER_DIR, path: ledgerPath };
        fresh = !ledger.list().some((entry) => entry.name === 'PG_VERSION');
        // A folder without a database is no ledger to read (initdb would write one).
        if (readOnly && fresh) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
        if (readOnly) snapshot = tarHeldDataDir(ledger);
      } finally {
        ledger.close();
      }
      // A reader runs on its copy from here on: another reader or a publication need not wait for it.
      if (readOnly) {
        lock.release();
        lock = undefined;
      }
    } catch (error: unknown) {
      if (error instanceof Refusal) throw error;
      throw refuseLedger('contract_ledger_unavailable', {
        role: 'ledger',
        hint: openFailureHint(step, error, readOnly),
      });
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
      if (created && sealkit !== undefined) removeCreatedTree(sealkit, LEDGER_DIR);
      throw refuseLedger('contract_ledger_unavailable', {
        role: 'ledger',
        hint: readOnly
          ? `the database in ${ledgerPath} could not be started from its files: check that the folder holds an intact sealkit ledger`
          : fresh
            ? `the new ledger could not be made in ${ledgerPath}: check that this account can write it and that its disk is not full`
            : `the database in ${ledgerPath} could not be started: check that this account can write the folder, that its disk is not full, and that it holds an intact sealkit ledger`,
      });
    }
    const held = release;
    const heldSealkit = sealkit;
    const close = async () => {
      try {
        await db.close();
      } finally {
        held();
      }
    };
    return {
      connection: connectionOver('pglite', pgliteLedgerSession(db), close),
      created,
      async discard() {
        try {
          await db.close().catch(() => undefined);
          if (created) removeCreatedTree(heldSealkit, LEDGER_DIR);
        } finally {
          held();
        }
      },
    };
  } catch (error: unknown) {
    release();
    throw error;
  }
}

/** How long opening the embedded ledger waits for another process's lock (docs/contracts.md#embedded-ledger). */
export const LOCK_WAIT_MS = 2000;
const LOCK_POLL_MS = 50;

/**
 * The ledger lock: shared for a reader, which holds it only while it copies
 * the files, exclusive for a publication, which holds it to the end. Held by
 * another process, it is asked for again every 50 ms for up to `waitMs`
 * (so a reader's copy, a fraction of a second, delays rather than refuses),
 * then refused as busy.
 */
async function lockWithin(sealkit: Dir, mode: 'shared' | 'exclusive', waitMs: number): Promise<HeldLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const locked =
      mode === 'shared'
        ? lockSharedNonBlocking(sealkit, LOCK_FILE)
        : lockExclusiveNonBlocking(sealkit, LOCK_FILE);
    if (locked.kind === 'acquired') return locked.lock;
    if (Date.now() >= deadline) throw busy();
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

function busy() {
  return refuseLedger('contract_ledger_busy', {
    role: 'ledger',
    hint: 'another publish, history or replay of this project holds the ledger: try again when it has finished',
  });
}

/**
 * The child folder `name`, held open: created 0700 when `create` allows it
 * and it is absent (`creating` is called first, so a failure is reported
 * as a failed creation); undefined when it is absent and may not be
 * created. Two processes creating it at once both hold the one that won.
 */
function openChildDir(parent: Dir, name: string, create: boolean, creating: () => void): Dir | undefined {
  try {
    return parent.openDir(name);
  } catch (error: unknown) {
    if (!isFsError(error, 'ENOENT') || !create) {
      if (isFsError(error, 'ENOENT')) return undefined;
      throw error;
    }
  }
  creating();
  try {
    return parent.mkdirExclusive(name, 0o700);
  } catch (error: unknown) {
    if (isFsError(error, 'EEXIST')) return parent.openDir(name);
    throw error;
  }
}

function childExists(parent: Dir, name: string): boolean {
  try {
    parent.stat(name);
    return true;
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return false;
    throw error;
  }
}

/**
 * Removes a folder this process created, and everything in it (all of it
 * written by this process under the ledger lock). Best effort: a folder
 * that cannot be removed is left for the operator.
 */
function removeCreatedTree(parent: Dir, name: string): void {
  try {
    const dir = parent.openDir(name);
    try {
      for (const entry of dir.list()) {
        const type = entry.type === 'unknown' ? dir.stat(entry.bytes).type : entry.type;
        if (type === 'directory') removeCreatedTree(dir, entry.name);
        else dir.unlink(entry.bytes);
      }
    } finally {
      dir.close();
    }
    parent.rmdir(name);
  } catch {
    // Left in place: the next publication finds it and starts over or refuses with its cause.
  }
}

/**
 * Why the ledger's folder or lock file could not be opened, from the errno
 * alone and for what the command does: a reading command (history, replay,
 * a dry run) is never told to create or write anything.
 */
function openFailureHint(step: OpenStep, error: unknown, readOnly: boolean): string {
  const code = error instanceof FsError ? error.code : undefined;
  if (code === undefined) return `${step.path} could not be opened`;
  if (step.kind === 'create') {
    return `this account cannot create ${step.path}: ${writeFailureCause(code, 'it') ?? `the write failed (${code})`}`;
  }
  const verb = step.kind === 'read' ? 'read the files of' : 'open';
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `this account cannot ${verb} ${step.path} (permission denied, ${code})${accessAdvice(step, readOnly)}`;
    case 'ENOTDIR':
      return `${step.path} is not a folder (ENOTDIR)`;
    case 'ELOOP':
      return `${step.path} is a symbolic link (ELOOP): sealkit does not follow one there`;
    case 'EROFS':
      return `${step.path} is on a read-only filesystem (EROFS): publishing writes the ledger`;
    default:
      return `this account cannot ${verb} ${step.path} (${code})`;
  }
}

/**
 * Whose the entry is and its mode, as a permission refusal shows them, and
 * what would let this account in.
 */
function accessAdvice(step: OpenStep, readOnly: boolean): string {
  const access = readOnly ? 'read' : 'read and write';
  if (step.kind === 'create' || step.parent === undefined) return `: check its permissions`;
  let stat: { readonly uid: number; readonly mode: number };
  try {
    stat = step.parent.stat(step.name);
  } catch {
    return `: check its permissions`;
  }
  const mode = `0${stat.mode.toString(8).padStart(3, '0')}`;
  return stat.uid === process.geteuid?.()
    ? `: its mode is ${mode}; give this account ${access} access`
    : `: it belongs to another account (uid ${stat.uid}) and its mode is ${mode}; run sealkit as that account, or have it give this one ${access} access`;
}
