import { defineRefusals } from '../refusal/index.js';

export type InputRefusalCode = 'input_missing' | 'input_unreadable' | 'input_not_regular';

export const refuseInput = defineRefusals<InputRefusalCode>({
  input_missing: { category: 'missing', message: 'the input file does not exist' },
  input_unreadable: { category: 'unavailable', message: 'the input file cannot be read' },
  input_not_regular: { category: 'malformed', message: 'the input is not a regular file' },
});
