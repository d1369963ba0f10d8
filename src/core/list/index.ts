// Checked reads of lists, for code that has already bounded its index.
// Internal to sealkit: not part of the package's public API.
export { at } from './at.js';
