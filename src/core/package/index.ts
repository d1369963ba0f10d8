export { packageRoot } from './root.js';
export { packageVersion } from './version.js';
