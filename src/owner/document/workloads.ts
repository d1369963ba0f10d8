import type { Sha256Hex } from '../../core/digest/index.js';
import { at } from '../../core/list/index.js';
import { fail, readArray, readMatching, readOneOf, readRecord } from '../read.js';
import type { ActivationRequestValue, RequestWorkload } from '../request.js';
import { ACCESSES, type GuardId, ID, type ObjectId, PURPOSES } from '../vocabulary.js';
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

/** Strict order of effects by the (object ID, access, purpose) triple. */
function tripleBefore(a: OwnerEffect, b: OwnerEffect): boolean {
  if (a.object_id !== b.object_id) return a.object_id < b.object_id;
  if (a.access !== b.access) return a.access < b.access;
  return a.purpose < b.purpose;
}

function readEffects(
  value: unknown,
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
): readonly OwnerEffect[] {
  const list = readArray(value, 0, Number.MAX_SAFE_INTEGER, WORKLOAD, 'workloads[].effects');
  let previous: OwnerEffect | undefined;
  for (const entry of list) {
    const f = readRecord(entry, EFFECT_FIELDS, WORKLOAD, 'workloads[].effects[]');
    const objectId = f.object_id;
    if (typeof objectId !== 'string' || !ID.test(objectId)) fail(WORKLOAD, 'workloads[].effects[].object_id');
    const access = readOneOf(f.access, ACCESSES, WORKLOAD, 'workloads[].effects[].access');
    readOneOf(f.purpose, PURPOSES, WORKLOAD, 'workloads[].effects[].purpose');
    const effect = entry as OwnerEffect;
    if (previous !== undefined && !tripleBefore(previous, effect)) fail(WORKLOAD, 'workloads[].effects');
    previous = effect;
    const direction = scope.direction.get(objectId as ObjectId);
    if (direction === undefined) fail(WORKLOAD, 'workloads[].effects[].object_id');
    // The access decides; a purpose never grants write access.
    if (access === 'read' ? !direction.read : !direction.write)
      fail(WORKLOAD, 'workloads[].effects[].access');
    if (access === 'write') {
      const guard = scope.guardOf.get(objectId as ObjectId) as GuardId;
      if (scope.claimOf.get(guard)?.role !== 'target') fail(WORKLOAD, 'workloads[].effects[].access');
      if (retained.has(objectId as ObjectId)) fail(WORKLOAD, 'workloads[].effects[].access');
    }
  }
  return list as readonly OwnerEffect[];
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
  const byGuard = new Map<GuardId, Sha256Hex[]>();
  let previous = '';
  for (const entry of list) {
    const f = readRecord(entry, BINDING_FIELDS, WRITE_BINDING, 'workloads[].write_bindings[]');
    const write = readWrite(f.write, WRITE_BINDING, 'workloads[].write_bindings[].write');
    const objectId = f.object_id;
    if (typeof objectId !== 'string' || !ID.test(objectId))
      fail(WRITE_BINDING, 'workloads[].write_bindings[].object_id');
    const object = scope.byId.get(objectId as ObjectId);
    if (object === undefined || retained.has(object.object_id))
      fail(WRITE_BINDING, 'workloads[].write_bindings[].object_id');
    // Different legacy writes never map to one declared object.
    if (state.objects.has(object.object_id)) fail(WRITE_BINDING, 'workloads[].write_bindings[].object_id');
    state.objects.add(object.object_id);
    const guard = scope.guardOf.get(object.object_id) as GuardId;
    if (scope.claimOf.get(guard)?.role !== 'target')
      fail(WRITE_BINDING, 'workloads[].write_bindings[].object_id');
    if (
      write.connector !== object.connector ||
      write.kind !== object.object_kind ||
      !namesMatch(write, object.qualified_name) ||
      !scope.cell.writeKinds.includes(write.kind) ||
      !scope.cell.writeRoles.includes(write.role)
    ) {
      fail(WRITE_BINDING, 'workloads[].write_bindings[].write');
    }
    // The genuine write needs the write access itself, whatever the purpose.
    if (!written.has(object.object_id)) fail(WRITE_BINDING, 'workloads[].write_bindings[].object_id');
    const subject = logicalWriteSha256Unchecked(write);
    if (!(previous < subject) || state.subjects.has(subject)) fail(WRITE_BINDING, field);
    previous = subject;
    state.subjects.add(subject);
    const group = byGuard.get(guard);
    if (group === undefined) byGuard.set(guard, [subject]);
    else group.push(subject);
  }
  // The bridge reproduces the request's write partition of this workload, resource by resource.
  if (byGuard.size !== request.writes.length) fail(WRITE_BINDING, field);
  for (const group of request.writes) {
    const mine = byGuard.get(group.guard_id);
    if (mine === undefined || mine.length !== group.logical_write_sha256s.length) fail(WRITE_BINDING, field);
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== group.logical_write_sha256s[i]) fail(WRITE_BINDING, field);
    }
  }
  return list as readonly OwnerWriteBinding[];
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
  for (let i = 0; i < list.length; i++) {
    const f = readRecord(list[i], WORKLOAD_FIELDS, WORKLOAD, 'workloads[]');
    const id = readMatching(f.workload_id, ID, WORKLOAD, 'workloads[].workload_id');
    const requested = at(request.workloads, i);
    if (id !== requested.workload_id) fail(WORKLOAD, 'workloads');
    const effects = readEffects(f.effects, scope, retained);
    requireRetainedRead(effects, scope, retained);
    readBindings(f.write_bindings, requested, effects, scope, retained, state);
  }
  return list as readonly OwnerWorkload[];
}
