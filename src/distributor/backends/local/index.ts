export { LocalBackends } from './backend.js';
export { WORK_AREA } from './work-area.js';
