import { OWNER_LIMITS } from '../limits.js';
import { type Fields, fail, lengthOf, type Site } from '../read.js';
import { HANDOFF, OBJECT, OBSERVATION, OWNER, WORKLOAD, WRITE_BINDING } from './sites.js';

function entriesOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function fieldOf(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, key) ? (value as Fields)[key] : undefined;
}

function within(
  count: number,
  bound: { readonly min: number; readonly max: number },
  site: Site,
  field: string,
) {
  if (count < bound.min || count > bound.max) fail(site, field);
}

/**
 * Every count of the limit table (docs/owner.md#limits), checked before any
 * entry is read, so an oversized collection refuses the whole document with
 * its own reason whatever else is wrong with it. The order puts each count
 * before the counts it implies (a 257th claim also needs a 257th observation
 * and epoch move; an 8193rd genuine write binding needs an 8193rd write effect
 * and object; an 8193rd retained source an 8193rd object), so a consistent
 * document over one limit is refused for that limit. Entries of the wrong
 * type count as nothing here; the entry readers refuse them.
 */
export function checkOwnerLimits(top: Fields): void {
  const L = OWNER_LIMITS;
  const workloads = top.workloads;
  if (Array.isArray(workloads)) {
    within(workloads.length, L.workloads, WORKLOAD, 'workloads');
    let effects = 0;
    let bindings = 0;
    for (const workload of workloads) {
      effects += lengthOf(fieldOf(workload, 'effects'));
      bindings += lengthOf(fieldOf(workload, 'write_bindings'));
    }
    within(bindings, L.writeBindings, WRITE_BINDING, 'workloads[].write_bindings');
    within(effects, L.effects, WORKLOAD, 'workloads[].effects');
  }
  if (Array.isArray(top.claims)) within(top.claims.length, L.claims, OWNER, 'claims');
  if (Array.isArray(top.observations))
    within(top.observations.length, L.observations, OBSERVATION, 'observations');
  const epochs = fieldOf(top.handoff, 'epochs');
  if (Array.isArray(epochs)) within(epochs.length, L.epochMoves, HANDOFF, 'handoff.epochs');
  const seals = fieldOf(top.handoff, 'source_seals');
  if (Array.isArray(seals)) within(seals.length, L.sealAssociations, HANDOFF, 'handoff.source_seals');
  if (Array.isArray(top.retained_source_ids)) {
    within(top.retained_source_ids.length, L.retainedSourceIds, OBJECT, 'retained_source_ids');
  }
  if (Array.isArray(top.objects)) within(top.objects.length, L.objects, OBJECT, 'objects');
  let subjects = 0;
  for (const claim of entriesOf(top.claims)) {
    subjects += lengthOf(fieldOf(claim, 'read_subjects')) + lengthOf(fieldOf(claim, 'write_subjects'));
  }
  within(subjects, L.subjects, OWNER, 'claims');
}
