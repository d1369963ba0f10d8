import { ORIGINAL_LIMITS } from './limits.js';
import { readArray, readBigInteger, readMatching, readRecord, requireAscending, type Site } from './read.js';
import { GUARD_ID, type GuardId } from './vocabulary.js';

/** One guard and the epoch an original holds it at. */
export interface GuardEpoch {
  readonly guard_id: GuardId;
  readonly epoch: bigint;
}

const FIELDS = ['epoch', 'guard_id'] as const;

/** Checks a list of guard epochs at `field` + `suffix`: strictly ascending by guard, epochs in [min, max]. */
export function readGuardEpochs(
  value: unknown,
  min: bigint,
  max: bigint,
  site: Site,
  field: string,
  suffix: string,
): readonly GuardEpoch[] {
  const list = readArray(
    value,
    ORIGINAL_LIMITS.guardEpochs.min,
    ORIGINAL_LIMITS.guardEpochs.max,
    site,
    field,
    suffix,
  );
  const guards: string[] = [];
  for (const entry of list) {
    const f = readRecord(entry, FIELDS, site, field, `${suffix}[]`);
    guards.push(readMatching(f.guard_id, GUARD_ID, site, field, `${suffix}[].guard_id`));
    readBigInteger(f.epoch, min, max, site, field, `${suffix}[].epoch`);
  }
  requireAscending(guards, site, field, suffix);
  return value as readonly GuardEpoch[];
}

/** Turns the epochs of a list that `readGuardEpochs` will check into bigints, in place (decoder-owned data only). */
export function epochsToBigInt(list: unknown, key: string): void {
  if (!Array.isArray(list)) return;
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    const record = entry as Record<string, unknown>;
    const epoch = record[key];
    if (typeof epoch === 'number' && Number.isSafeInteger(epoch)) record[key] = BigInt(epoch);
  }
}
