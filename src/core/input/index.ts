export { readBoundedInput } from './read-bounded.js';
export { type InputRefusalCode, refuseInput } from './refusals.js';
