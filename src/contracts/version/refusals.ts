import { defineRefusals } from '../../core/refusal/index.js';

/**
 * Why two projections cannot be classified (decoding failures keep the
 * decoder's own codes), or why a classification fails the level a caller
 * set (`contract classify --fail-on`).
 */
export type ContractVersionRefusalCode =
  | 'contract_classify_resource_mismatch'
  | 'contract_classify_fail_on_reached';

export const refuseContractVersion = defineRefusals<ContractVersionRefusalCode>({
  contract_classify_resource_mismatch: {
    category: 'mismatched',
    message: 'the baseline and the candidate are projections of different resources (kind or id)',
  },
  contract_classify_fail_on_reached: {
    category: 'conflict',
    message: 'the verdict of the change is at or above the level --fail-on names',
  },
});
