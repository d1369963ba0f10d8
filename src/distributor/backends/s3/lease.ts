import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { sha256Prefixed } from '../../../core/digest/index.js';
import type { Refusal } from '../../../core/refusal/index.js';
import { instantOf } from '../../model/instant.js';
import type { Instant } from '../../model/types.js';
import { refuseDistributor } from '../../refusals.js';
import { classifyS3Error } from './errors.js';
import { type PendingClaim, type PendingMarker, serializePending } from './pending.js';
import { DeleteObjectCommand } from './sdk.js';
import { type PutCondition, putVerified, type UploadTarget } from './upload.js';

/** How long a pending marker's claim lasts without renewal, unless configured. */
export const DEFAULT_LEASE_MS = 120_000;

export interface LeaseClock {
  /** Wall-clock time for lease ends (a test may run it ahead to stand for "later"). */
  now(): Date;
}

export interface LeaseSettings {
  readonly target: UploadTarget;
  /** The marker's key. */
  readonly key: string;
  readonly clock: LeaseClock;
  /** How long a claim lasts without renewal. */
  readonly leaseMs: number;
  /** The fault-injection hook, called before every marker write and delete. */
  readonly beforeWrite: (kind: 'put' | 'delete') => void;
}

/**
 * `destination_locked` for a bundle whose marker another run holds, with
 * when its lease ends: a run that died (killed, its machine lost) holds the
 * bundle exactly that long, while a run still at work keeps renewing it.
 * `wait` is this run's `--wait` when it had one: the advice is then not to
 * pass the flag it already passed. `wait.spent` is false when the other run
 * took the bundle after this run had looked at it (between inspection and
 * this run's marker): `--wait` never held for it, and saying the wait ran
 * out would send the operator to raise a wait that was not the cause.
 */
export function lockedRefusal(
  expires: Instant,
  now: Instant,
  wait?:
    | { readonly seconds: number; readonly spent: boolean }
    | { readonly seconds: number; readonly dryRun: true },
): Refusal {
  const seconds = Math.max(1, Math.ceil((Date.parse(expires) - Date.parse(now)) / 1000));
  const held = `another run is publishing it (its pending marker's lease ends at ${expires}, in ${seconds} s, unless that run renews it)`;
  return refuseDistributor('destination_locked', {
    role: 'destination',
    hint:
      wait === undefined
        ? `${held}: run again once that run is done, or after the lease if it died (--wait SECONDS waits up to that long for it)`
        : 'dryRun' in wait
          ? `${held}; a dry run does not wait for it, and a real run with this --wait (${wait.seconds} s) would look at the bundle again every second, ${
              wait.seconds > seconds
                ? 'past the end of the lease: the bundle is then published from what that run left, or taken over if it died'
                : 'and its wait ends before the lease does: unless that run finishes first, it refuses the bundle too'
            }`
          : wait.spent
            ? `${held}, still after this run's --wait (${wait.seconds} s): run again once that run is done, or with a --wait longer than what is left of the lease if it died`
            : `${held}; that run took it after this run had looked at the bundle (while this run validated its sources), so this run's --wait (${wait.seconds} s) did not hold for it: run again once that run is done`,
  });
}

/** The lease was lost: another run took the marker over, or a renewal failed. */
export class LeaseLost extends Error {
  constructor() {
    super('lease lost');
    this.name = 'LeaseLost';
  }
}

/**
 * This run's hold on one bundle prefix through its pending marker. Every
 * write is conditional on the marker version this run wrote last, so a
 * takeover by another run is detected by the next renewal; while work goes
 * on, a timer renews the lease every quarter of its length, and a lost lease
 * aborts the upload in flight (`signal`).
 */
export class Lease {
  readonly run = randomBytes(16).toString('hex');
  readonly #settings: LeaseSettings;
  readonly #abort = new AbortController();
  /** Aborted by `abandon`: the marker writes and deletes in flight and to come. */
  readonly #abandoned = new AbortController();
  #etag: string | undefined;
  #claims: readonly PendingClaim[] = [];
  #queue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #lost = false;
  /** When this run last wrote the marker (clock milliseconds). */
  #written = 0;
  /** When the marker this run wrote last stops holding the bundle. */
  #heldUntil: Instant | undefined;
  /** Why the lease was lost: `LeaseLost` for a takeover, else the renewal's own failure. */
  #lossReason: unknown;

  constructor(settings: LeaseSettings) {
    this.#settings = settings;
    // Every request of the bundle carries this signal, many at once (see sharedSignal).
    setMaxListeners(0, this.#abort.signal);
  }

  /** Aborted when the lease is lost; passed to every upload. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The renewal interval: a quarter of the lease. */
  get interval(): number {
    return Math.max(Math.floor(this.#settings.leaseMs / 4), 1);
  }

  /**
   * Why the lease was lost (`LeaseLost` for a takeover, else the renewal's
   * failure), or undefined while it holds. A lost lease aborts the uploads in
   * flight, so their abort errors say less than this.
   */
  get lossReason(): unknown {
    return this.#lost ? this.#lossReason : undefined;
  }

  /**
   * Creates the marker (`If-None-Match: *`) or takes over an expired one
   * (`If-Match` its ETag), claiming `claims`. A lost race throws the SDK's
   * precondition error for the caller to classify.
   */
  async acquire(claims: readonly PendingClaim[], current: string | undefined): Promise<void> {
    this.#etag = await this.#write(
      claims,
      this.#expiry(),
      current === undefined ? { kind: 'absent' } : { kind: 'etag', etag: current },
    );
    this.#claims = claims;
    this.#timer = setInterval(() => {
      this.renew().catch(() => undefined);
    }, this.interval);
    this.#timer.unref();
  }

  /**
   * Extends the lease. Throws `LeaseLost` when another run took the marker
   * over, or the renewal's own failure; either way the lease is then lost.
   */
  renew(): Promise<void> {
    return this.#serialized(async () => {
      if (this.#lost) throw this.#lossReason;
      if (this.#etag === undefined) throw new LeaseLost();
      try {
        this.#etag = await this.#write(this.#claims, this.#expiry(), { kind: 'etag', etag: this.#etag });
      } catch (error) {
        this.#markLost(classifyS3Error(error) === 'precondition' ? new LeaseLost() : error);
        throw this.#lossReason;
      }
    });
  }

  /**
   * Before the commit point: proves the lease still holds. A marker this run
   * wrote less than one renewal interval ago cannot have been taken over (a
   * takeover waits for the lease to end, which is three intervals later), so
   * a short bundle commits without another marker write; an older one is
   * renewed first.
   */
  async ensureHeld(): Promise<void> {
    await this.#queue;
    this.check();
    if (this.#settings.clock.now().getTime() - this.#written >= this.interval) await this.renew();
  }

  /** Throws why the lease was lost, when a renewal has failed since the last check. */
  check(): void {
    if (this.#lost) throw this.#lossReason;
  }

  /**
   * Ends the claim early after a failure: the marker stays (it names what
   * this run may have written, with the digests it would have) but expires
   * now, so the next run converges at once instead of waiting for the lease.
   * `claims` may shrink the claim by keys this run found taken by someone
   * else. Best effort: a failure here leaves the lease to expire on its own.
   * True when the marker now holds nothing.
   */
  async release(claims: readonly PendingClaim[]): Promise<boolean> {
    this.#stopTimer();
    let released = false;
    await this.#serialized(async () => {
      if (this.#etag === undefined || this.#lost) return;
      try {
        this.#etag = await this.#write(claims, instantOf(this.#settings.clock.now()), {
          kind: 'etag',
          etag: this.#etag,
        });
        released = true;
      } catch {
        // the lease expires on its own
      }
    });
    return released;
  }

  /**
   * Until when the marker this run wrote last holds the bundle, while this
   * run holds the marker; undefined when it wrote none or lost it.
   */
  get heldUntil(): Instant | undefined {
    return this.#lost ? undefined : this.#heldUntil;
  }

  /**
   * Deletes the marker of a run that failed and whose marker names nothing
   * it may have written. The DELETE is unconditional (not every store honours
   * a condition on it), which is safe only while this run's lease is live: no
   * other run takes a marker over before its lease ends. So a marker written
   * one renewal interval ago or earlier is renewed first — a write on
   * `If-Match` of the version this run wrote last, which fails when another
   * run has taken it over — and the delete follows with three quarters of a
   * lease to spare.
   */
  async remove(): Promise<void> {
    this.#stopTimer();
    await this.#queue;
    this.check();
    if (this.#etag === undefined) return;
    if (this.#settings.clock.now().getTime() - this.#written >= this.interval) await this.renew();
    await this.#serialized(async () => {
      if (this.#lost) throw this.#lossReason;
      this.#settings.beforeWrite('delete');
      await this.#settings.target.client.send(
        new DeleteObjectCommand({ Bucket: this.#settings.target.bucket, Key: this.#settings.key }),
        { abortSignal: this.#abandoned.signal },
      );
      this.#etag = undefined;
      this.#heldUntil = undefined;
    });
  }

  /** Stops renewing (the marker stays as it is). */
  stop(): void {
    this.#stopTimer();
  }

  /**
   * Gives up every marker write and delete, in flight or to come: a run
   * stopped by a signal whose store does not answer would otherwise hold
   * the exit for their retries and timeouts, minutes for a store that
   * went silent. The marker then keeps what the store last took, and its
   * lease ends on its own (docs/distributor.md, "Commands", on signals).
   */
  abandon(): void {
    this.#stopTimer();
    this.#abandoned.abort();
  }

  /** Aborted once `abandon` was called. */
  get abandoned(): AbortSignal {
    return this.#abandoned.signal;
  }

  #expiry() {
    return instantOf(new Date(this.#settings.clock.now().getTime() + this.#settings.leaseMs));
  }

  async #write(
    claims: readonly PendingClaim[],
    expires: PendingMarker['expires'],
    condition: PutCondition,
  ): Promise<string> {
    const marker: PendingMarker = { schema_version: 2, run: this.run, expires, claims };
    const bytes = serializePending(marker);
    this.#settings.beforeWrite('put');
    const started = this.#settings.clock.now().getTime();
    // Not aborted by this lease's own signal: a release must still be written
    // after a failure. Only `abandon` gives it up.
    const etag = await putVerified(
      this.#settings.target,
      this.#settings.key,
      {
        sha256: sha256Prefixed(bytes),
        size: bytes.byteLength,
        headers: { contentType: 'application/json', cacheControl: 'no-store' },
      },
      { kind: 'bytes', bytes },
      condition,
      this.#abandoned.signal,
    );
    this.#written = started;
    this.#heldUntil = expires;
    return etag;
  }

  #serialized(task: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(task);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #markLost(reason: unknown): void {
    this.#lost = true;
    this.#lossReason = reason;
    this.#stopTimer();
    this.#abort.abort();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
