import { ORIGINAL_LIMITS } from './limits.js';
import { readArray, readBigInteger, readMatching, readRecord, requireAscending, type Site } from './read.js';
import { GUARD_ID, type GuardId } from './vocabulary.js';

/** One guard and the epoch an original holds it at. */
export interface GuardEpoch {
  readonly guard_id: GuardId;
  readonly epoch: bigint;
}

const FIELDS = ['epoch', 'guard_id'] as const;

/** A list of guard epochs, strictly ascending by guard, epochs in [min, max]. */
export function readGuardEpochs(
  value: unknown,
  min: bigint,
  max: bigint,
  site: Site,
  field: string,
): readonly GuardEpoch[] {
  const list = readArray(
    value,
    ORIGINAL_LIMITS.guardEpochs.min,
    ORIGINAL_LIMITS.guardEpochs.max,
    site,
    field,
  );
  const out: GuardEpoch[] = [];
  for (const entry of list) {
    const f = readRecord(entry, FIELDS, site, `${field}[]`);
    out.push(
      Object.freeze({
        guard_id: readMatching(f.guard_id, GUARD_ID, site, `${field}[].guard_id`) as GuardId,
        epoch: readBigInteger(f.epoch, min, max, site, `${field}[].epoch`),
      }),
    );
  }
  requireAscending(
    out.map((entry) => entry.guard_id),
    site,
    field,
  );
  return Object.freeze(out);
}
