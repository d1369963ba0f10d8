export { packageRoot } from './root.js';
