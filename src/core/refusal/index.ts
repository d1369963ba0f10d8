export { guardRefusals, guardRefusalsAsync, type InternalRefusalCode, refuseInternal } from './guard.js';
export {
  defineRefusals,
  Refusal,
  type RefusalCategory,
  type RefusalContext,
  type RefusalFactory,
  type RefusalLocation,
  type RefusalRecord,
  type RefusalSpec,
  type RefusalTable,
} from './refusal.js';
export { didYouMean, editDistance, nearest } from './suggest.js';
