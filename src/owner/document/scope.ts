import type { Sha256Hex } from '../../core/digest/index.js';
import { at } from '../../core/list/index.js';
import type { PhysicalClaim } from '../claim.js';
import { fail, sameList } from '../read.js';
import type { ActivationRequestValue } from '../request.js';
import { CELL_RULES, type CellRule, type GuardId, guardIdOf, type ObjectId } from '../vocabulary.js';
import type { ObjectIndex } from './objects.js';
import { OBJECT, OWNER } from './sites.js';

/** Which directions of the full qualified scope an object is claimed in. */
export interface Direction {
  readonly read: boolean;
  readonly write: boolean;
}

/** The cross-reference every later check of the document uses. */
export interface ScopeIndex extends ObjectIndex {
  readonly cell: CellRule;
  readonly claims: readonly PhysicalClaim[];
  readonly claimGuards: readonly GuardId[];
  readonly claimOf: ReadonlyMap<GuardId, PhysicalClaim>;
  readonly direction: ReadonlyMap<ObjectId, Direction>;
}

/**
 * Complete claim subject coverage (each claim subject is exactly one object
 * of its domain, each object is a subject of its domain's claim), then the
 * execution cell: target claims are exactly the request resources and carry
 * the cell's target connector; source claims carry one of its source
 * connectors.
 */
export function indexScope(
  objects: ObjectIndex,
  claims: readonly PhysicalClaim[],
  claimGuards: readonly GuardId[],
  request: ActivationRequestValue,
): ScopeIndex {
  const claimOf = new Map<GuardId, PhysicalClaim>();
  const direction = new Map<ObjectId, { read: boolean; write: boolean }>();
  for (const [i, claim] of claims.entries()) {
    const guard = at(claimGuards, i);
    claimOf.set(guard, claim);
    const bySubject = new Map<Sha256Hex, { read: boolean; write: boolean }>();
    for (const object of objects.byDomain.get(guard) ?? []) {
      const entry = { read: false, write: false };
      bySubject.set(object.subject_sha256, entry);
      direction.set(object.object_id, entry);
    }
    for (const subject of claim.read_subjects) {
      const entry = bySubject.get(subject);
      if (entry === undefined) fail(OBJECT, 'objects');
      entry.read = true;
    }
    for (const subject of claim.write_subjects) {
      const entry = bySubject.get(subject);
      if (entry === undefined) fail(OBJECT, 'objects');
      entry.write = true;
    }
    for (const entry of bySubject.values()) if (!entry.read && !entry.write) fail(OBJECT, 'objects');
  }
  // An object of a domain nobody claims is outside the scope.
  for (const guard of objects.byDomain.keys()) if (!claimOf.has(guard)) fail(OBJECT, 'objects');

  const cell = CELL_RULES[request.execution_cell];
  const targets: GuardId[] = [];
  for (const [i, claim] of claims.entries()) {
    if (claim.role === 'target') {
      if (claim.connector !== cell.target) fail(OWNER, 'claims[].connector');
      targets.push(at(claimGuards, i));
    } else if (!cell.sources.includes(claim.connector)) {
      fail(OWNER, 'claims[].connector');
    }
  }
  if (!sameList(targets, request.resources.map(guardIdOf))) fail(OWNER, 'claims');

  return { ...objects, cell, claims, claimGuards, claimOf, direction };
}
