// sealkit's library API. Each domain adds its exports here as it lands.
export * from './contracts/index.js';
export * from './core/index.js';
export * from './distributor/index.js';
export * from './distributor/rendering.js';
export * from './editions/index.js';
export * from './migration/index.js';
export * from './owner/index.js';
export * from './scaffold/index.js';
