import { defineRefusals } from '../../core/refusal/index.js';

/** Why two projections cannot be classified; decoding failures keep the decoder's own codes. */
export type ContractVersionRefusalCode = 'contract_classify_resource_mismatch';

export const refuseContractVersion = defineRefusals<ContractVersionRefusalCode>({
  contract_classify_resource_mismatch: {
    category: 'mismatched',
    message: 'the baseline and the candidate are projections of different resources (kind or id)',
  },
});
