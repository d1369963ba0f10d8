import type { SourceResource } from '../authoring/schemas/resource.js';
import type { BuiltContent } from './build-context.js';
import { type FaultSink, THROW_FIRST } from './faults.js';
import { projectFields } from './fields.js';
import type { SourceContent } from './payload.js';

/**
 * Source content: the typed field set. Excluded by review (see the exclusion
 * manifest): name, description, tags, location, credentials, target, runtime.
 */
export function buildSourceContent(
  source: SourceResource,
  faults: FaultSink = THROW_FIRST,
): BuiltContent<SourceContent> {
  return {
    content: { fields: [...projectFields(source.fields, 'source', faults).payloads] },
    dependencies: [],
  };
}
