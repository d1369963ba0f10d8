export { guardRefusals, guardRefusalsAsync, type InternalRefusalCode, refuseInternal } from './guard.js';
export {
  defineRefusals,
  Refusal,
  type RefusalCategory,
  type RefusalContext,
  type RefusalFactory,
  type RefusalRecord,
  type RefusalSpec,
  type RefusalTable,
} from './refusal.js';
