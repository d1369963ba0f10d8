export { guardRefusals, guardRefusalsAsync, type InternalRefusalCode, refuseInternal } from './guard.js';
export {
  defineRefusals,
  MAX_REPORTED_ERRORS,
  Refusal,
  type RefusalCategory,
  type RefusalContext,
  type RefusalFactory,
  type RefusalLocation,
  type RefusalRecord,
  type RefusalSpec,
  type RefusalTable,
  refuseAll,
} from './refusal.js';
export { didYouMean, editDistance, nearest } from './suggest.js';
