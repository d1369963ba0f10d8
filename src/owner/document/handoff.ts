import type { Sha256Hex } from '../../core/digest/index.js';
import { sha256Hex } from '../../core/digest/index.js';
import { canonicalBytes } from '../canonical.js';
import { readDescriptor } from '../descriptor.js';
import { epochsToBigInt } from '../guard-epochs.js';
import {
  MAX_EXECUTION_EPOCH,
  MAX_ORIGINAL_BYTES,
  MAX_QUALIFICATION_EPOCH,
  MIN_QUALIFICATION_EPOCH,
} from '../limits.js';
import { prepareOperation, validateOperation } from '../operation.js';
import {
  type Fields,
  fail,
  readArray,
  readBigInteger,
  readIdList,
  readMatching,
  readRecord,
  readSha256,
  requireAscending,
  sameList,
} from '../read.js';
import { GUARD_ID, type GuardId, ID, type ObjectId, QUALIFICATION_OWNER_KEY } from '../vocabulary.js';
import type { OwnerHandoff } from './model.js';
import type { ObservationIndex } from './observations.js';
import type { ScopeIndex } from './scope.js';
import { HANDOFF } from './sites.js';

const FIELDS = [
  'epochs',
  'qualification_owner_key',
  'qualification_owner_subject_sha256',
  'source_seals',
] as const;
const MOVE_FIELDS = ['execution_epoch', 'guard_id', 'qualification_epoch'] as const;
const SEAL_FIELDS = ['operation', 'original', 'source_object_ids'] as const;

/** One move per claim guard, ascending; the new epoch is exactly the old plus one. Returns the old epochs. */
function readEpochs(value: unknown, scope: ScopeIndex): ReadonlyMap<GuardId, bigint> {
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, HANDOFF, 'handoff.epochs');
  const old = new Map<GuardId, bigint>();
  const guards: GuardId[] = [];
  for (const entry of list) {
    const f = readRecord(entry, MOVE_FIELDS, HANDOFF, 'handoff.epochs[]');
    const guard = readMatching(f.guard_id, GUARD_ID, HANDOFF, 'handoff.epochs[].guard_id') as GuardId;
    if (!scope.claimOf.has(guard)) fail(HANDOFF, 'handoff.epochs[].guard_id');
    const before = readBigInteger(
      f.qualification_epoch,
      MIN_QUALIFICATION_EPOCH,
      MAX_QUALIFICATION_EPOCH,
      HANDOFF,
      'handoff.epochs[].qualification_epoch',
    );
    const after = readBigInteger(
      f.execution_epoch,
      2n,
      MAX_EXECUTION_EPOCH,
      HANDOFF,
      'handoff.epochs[].execution_epoch',
    );
    if (after !== before + 1n) fail(HANDOFF, 'handoff.epochs[].execution_epoch');
    old.set(guard, before);
    guards.push(guard);
  }
  requireAscending(guards, HANDOFF, 'handoff.epochs');
  if (!sameList(guards, scope.claimGuards)) fail(HANDOFF, 'handoff.epochs');
  return old;
}

/**
 * Source-seal associations ascending by the digest of their unchanged
 * `source_seal` operation. Every retained source occurs in exactly one; the
 * operation belongs to the handoff's qualification owner, holds each guard
 * it selects at that guard's old epoch, and selects the guard of every source
 * it names. Seal descriptors are unique and never reuse an observation's.
 */
function readSeals(
  value: unknown,
  handoff: { readonly key: string; readonly subject: Sha256Hex },
  oldEpochs: ReadonlyMap<GuardId, bigint>,
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
  observations: ObservationIndex,
): void {
  const field = 'handoff.source_seals';
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, HANDOFF, field);
  const digests: Sha256Hex[] = [];
  const sealed = new Set<ObjectId>();
  const paths = new Set<string>();
  const originals = new Set<string>();
  let grant: Sha256Hex | undefined;
  for (const entry of list) {
    const f = readRecord(entry, SEAL_FIELDS, HANDOFF, `${field}[]`);
    const operation = validateOperation(f.operation, HANDOFF, `${field}[].operation`);
    if (operation.action !== 'source_seal') fail(HANDOFF, `${field}[].operation.action`);
    const bytes = canonicalBytes(operation);
    if (bytes.length > MAX_ORIGINAL_BYTES) fail(HANDOFF, `${field}[].operation`);
    digests.push(sha256Hex(bytes));
    if (operation.owner_key !== handoff.key) fail(HANDOFF, `${field}[].operation.owner_key`);
    if (operation.owner_subject_sha256 !== handoff.subject)
      fail(HANDOFF, `${field}[].operation.owner_subject_sha256`);
    if (grant !== undefined && operation.grant_sha256 !== grant)
      fail(HANDOFF, `${field}[].operation.grant_sha256`);
    grant = operation.grant_sha256;
    const selected = new Set<GuardId>();
    for (const held of operation.guard_epochs) {
      if (oldEpochs.get(held.guard_id) !== BigInt(held.epoch))
        fail(HANDOFF, `${field}[].operation.guard_epochs`);
      selected.add(held.guard_id);
    }
    const sources = readIdList(
      f.source_object_ids,
      1,
      Number.MAX_SAFE_INTEGER,
      ID,
      HANDOFF,
      `${field}[].source_object_ids`,
    ) as readonly ObjectId[];
    for (const id of sources) {
      if (!retained.has(id) || sealed.has(id)) fail(HANDOFF, `${field}[].source_object_ids`);
      sealed.add(id);
      if (!selected.has(scope.guardOf.get(id) as GuardId)) fail(HANDOFF, `${field}[].operation.guard_epochs`);
    }
    const original = readDescriptor(f.original, HANDOFF, `${field}[]`, '.original');
    if (paths.has(original.path) || observations.paths.has(original.path))
      fail(HANDOFF, `${field}[].original.path`);
    if (originals.has(original.sha256) || observations.digests.has(original.sha256)) {
      fail(HANDOFF, `${field}[].original.sha256`);
    }
    paths.add(original.path);
    originals.add(original.sha256);
  }
  requireAscending(digests, HANDOFF, field);
  if (sealed.size !== retained.size) fail(HANDOFF, field);
}

export function readHandoff(
  value: unknown,
  scope: ScopeIndex,
  retained: ReadonlySet<ObjectId>,
  observations: ObservationIndex,
): OwnerHandoff {
  const f = readRecord(value, FIELDS, HANDOFF, 'handoff');
  const key = readMatching(
    f.qualification_owner_key,
    QUALIFICATION_OWNER_KEY,
    HANDOFF,
    'handoff.qualification_owner_key',
  );
  const subject = readSha256(
    f.qualification_owner_subject_sha256,
    HANDOFF,
    'handoff.qualification_owner_subject_sha256',
  );
  const oldEpochs = readEpochs(f.epochs, scope);
  readSeals(f.source_seals, { key, subject }, oldEpochs, scope, retained, observations);
  return value as OwnerHandoff;
}

/** Epochs as bigints before checking (decoder-owned data only): moves and seal operations. */
export function prepareHandoff(handoff: unknown): void {
  if (typeof handoff !== 'object' || handoff === null) return;
  const epochs = (handoff as Fields).epochs;
  epochsToBigInt(epochs, 'qualification_epoch');
  epochsToBigInt(epochs, 'execution_epoch');
  const seals = (handoff as Fields).source_seals;
  if (!Array.isArray(seals)) return;
  for (const seal of seals) {
    if (typeof seal === 'object' && seal !== null) prepareOperation((seal as Fields).operation);
  }
}
