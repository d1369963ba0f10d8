import { OWNER_LIMITS } from '../limits.js';
import { fail, readIdList } from '../read.js';
import { ID, type ObjectId } from '../vocabulary.js';
import type { ScopeIndex } from './scope.js';
import { OBJECT } from './sites.js';

/** Retained source IDs: ascending, declared objects, each read within its claim's scope. */
export function readRetained(value: unknown, scope: ScopeIndex): readonly ObjectId[] {
  const ids = readIdList(
    value,
    OWNER_LIMITS.retainedSourceIds.min,
    OWNER_LIMITS.retainedSourceIds.max,
    ID,
    OBJECT,
    'retained_source_ids',
  ) as readonly ObjectId[];
  for (const id of ids) {
    if (scope.direction.get(id)?.read !== true) fail(OBJECT, 'retained_source_ids[]');
  }
  return ids;
}
