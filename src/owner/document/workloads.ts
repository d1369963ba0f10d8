import type { Sha256Hex } from '../../core/digest/index.js';
import { fail, readArray, readMatching, readOneOf, readRecord, requireAscending } from '../read.js';
import type { ActivationRequestValue, RequestWorkload } from '../request.js';
import { ACCESSES, type GuardId, ID, type ObjectId, PURPOSES, type WorkloadId } from '../vocabulary.js';
import { logicalWriteSha256Unchecked, readWrite } from '../write.js';
import type { OwnerEffect, OwnerWorkload, OwnerWriteBinding } from './model.js';
import type { ScopeIndex } from './scope.js';
import { WORKLOAD, WRITE_BINDING } from './sites.js';

const WORKLOAD_FIELDS = ['effects', 'workload_id', 'write_bindings'] as const;
const EFFECT_FIELDS = ['access', 'object_id', 'purpose'] as const;
const BINDING_FIELDS = ['object_id', 'write'] as const;

/** What the bindings of all workloads have claimed so far (the bridge is injective document-wide). */
interface BindingState {
  readonly subjects: Set<Sha256Hex>;
  readonly objects: Set<ObjectId>;
}

function readEffects(
  value: unknown,
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
): readonly OwnerEffect[] {
  const field = 'workloads[].effects';
  const list = readArray(value, 0, Number.MAX_SAFE_INTEGER, WORKLOAD, field);
  const effects: OwnerEffect[] = [];
  const keys: string[] = [];
  for (const entry of list) {
    const f = readRecord(entry, EFFECT_FIELDS, WORKLOAD, `${field}[]`);
    const effect: OwnerEffect = Object.freeze({
      object_id: readMatching(f.object_id, ID, WORKLOAD, `${field}[].object_id`) as ObjectId,
      access: readOneOf(f.access, ACCESSES, WORKLOAD, `${field}[].access`),
      purpose: readOneOf(f.purpose, PURPOSES, WORKLOAD, `${field}[].purpose`),
    });
    const direction = scope.direction.get(effect.object_id);
    if (direction === undefined) fail(WORKLOAD, `${field}[].object_id`);
    // The access decides; a purpose never grants write access.
    if (effect.access === 'read' ? !direction.read : !direction.write) fail(WORKLOAD, `${field}[].access`);
    if (effect.access === 'write') {
      const guard = scope.guardOf.get(effect.object_id) as GuardId;
      if (scope.claimOf.get(guard)?.role !== 'target') fail(WORKLOAD, `${field}[].access`);
      if (retained.has(effect.object_id)) fail(WORKLOAD, `${field}[].access`);
    }
    effects.push(effect);
    // NUL sorts before every ID character, so the joined key orders as the triple.
    keys.push(`${effect.object_id}\u0000${effect.access}\u0000${effect.purpose}`);
  }
  requireAscending(keys, WORKLOAD, field);
  return Object.freeze(effects);
}

/** Every workload of the cell that needs one reads at least one retained source of the cell's kind. */
function requireRetainedRead(
  effects: readonly OwnerEffect[],
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
) {
  const required = scope.cell.requiredRead;
  if (required === null) return;
  for (const effect of effects) {
    if (effect.access !== 'read' || !retained.has(effect.object_id)) continue;
    const object = scope.byId.get(effect.object_id);
    if (
      object !== undefined &&
      object.connector === required.connector &&
      required.kinds.includes(object.object_kind)
    ) {
      return;
    }
  }
  fail(WORKLOAD, 'workloads[].effects');
}

/** A write's names equal the object's parts; a null database leaves the database to the connection. */
function namesMatch(write: OwnerWriteBinding['write'], parts: readonly string[]): boolean {
  if (parts.length === 2) {
    return (
      (write.database === null || write.database === parts[0]) &&
      write.schema === parts[0] &&
      write.relation === parts[1]
    );
  }
  return (
    (write.database === null || write.database === parts[0]) &&
    write.schema === parts[1] &&
    write.relation === parts[2]
  );
}

function readBindings(
  value: unknown,
  request: RequestWorkload,
  effects: readonly OwnerEffect[],
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
  state: BindingState,
): readonly OwnerWriteBinding[] {
  const field = 'workloads[].write_bindings';
  const list = readArray(value, 0, Number.MAX_SAFE_INTEGER, WRITE_BINDING, field);
  const written = new Set<ObjectId>();
  for (const effect of effects) if (effect.access === 'write') written.add(effect.object_id);
  const bindings: OwnerWriteBinding[] = [];
  const subjects: Sha256Hex[] = [];
  const byGuard = new Map<GuardId, Sha256Hex[]>();
  for (const entry of list) {
    const f = readRecord(entry, BINDING_FIELDS, WRITE_BINDING, `${field}[]`);
    const write = readWrite(f.write, WRITE_BINDING, `${field}[].write`);
    const objectId = readMatching(f.object_id, ID, WRITE_BINDING, `${field}[].object_id`) as ObjectId;
    const object = scope.byId.get(objectId);
    if (object === undefined || retained.has(objectId)) fail(WRITE_BINDING, `${field}[].object_id`);
    // Different legacy writes never map to one declared object.
    if (state.objects.has(objectId)) fail(WRITE_BINDING, `${field}[].object_id`);
    state.objects.add(objectId);
    const guard = scope.guardOf.get(objectId) as GuardId;
    if (scope.claimOf.get(guard)?.role !== 'target') fail(WRITE_BINDING, `${field}[].object_id`);
    if (
      write.connector !== object.connector ||
      write.kind !== object.object_kind ||
      !namesMatch(write, object.qualified_name) ||
      !scope.cell.writeKinds.includes(write.kind) ||
      !scope.cell.writeRoles.includes(write.role)
    ) {
      fail(WRITE_BINDING, `${field}[].write`);
    }
    // The genuine write needs the write access itself, whatever the purpose.
    if (!written.has(objectId)) fail(WRITE_BINDING, `${field}[].object_id`);
    const subject = logicalWriteSha256Unchecked(write);
    if (state.subjects.has(subject)) fail(WRITE_BINDING, field);
    state.subjects.add(subject);
    subjects.push(subject);
    const group = byGuard.get(guard);
    if (group === undefined) byGuard.set(guard, [subject]);
    else group.push(subject);
    bindings.push(Object.freeze({ write, object_id: objectId }));
  }
  requireAscending(subjects, WRITE_BINDING, field);
  // The bridge reproduces the request's write partition of this workload, resource by resource.
  if (byGuard.size !== request.writes.length) fail(WRITE_BINDING, field);
  for (const group of request.writes) {
    const mine = byGuard.get(group.guard_id);
    if (mine === undefined || mine.length !== group.logical_write_sha256s.length) fail(WRITE_BINDING, field);
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== group.logical_write_sha256s[i]) fail(WRITE_BINDING, field);
    }
  }
  return Object.freeze(bindings);
}

/**
 * Workloads ascending by ID and exactly the request's. Effects are
 * object/access/purpose triples inside the full qualified directional scope;
 * writes only on target domains and never on a retained source. Genuine
 * write bindings carry unchanged originals and reproduce the request's
 * logical write partition.
 */
export function readWorkloads(
  value: unknown,
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
  request: ActivationRequestValue,
): readonly OwnerWorkload[] {
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, WORKLOAD, 'workloads');
  if (list.length !== request.workloads.length) fail(WORKLOAD, 'workloads');
  const state: BindingState = { subjects: new Set(), objects: new Set() };
  const workloads: OwnerWorkload[] = [];
  for (let i = 0; i < list.length; i++) {
    const f = readRecord(list[i], WORKLOAD_FIELDS, WORKLOAD, 'workloads[]');
    const id = readMatching(f.workload_id, ID, WORKLOAD, 'workloads[].workload_id') as WorkloadId;
    const requested = request.workloads[i] as RequestWorkload;
    if (id !== requested.workload_id) fail(WORKLOAD, 'workloads');
    const effects = readEffects(f.effects, scope, retained);
    requireRetainedRead(effects, scope, retained);
    const bindings = readBindings(f.write_bindings, requested, effects, scope, retained, state);
    workloads.push(Object.freeze({ workload_id: id, effects, write_bindings: bindings }));
  }
  return Object.freeze(workloads);
}
