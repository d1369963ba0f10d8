// The integrity kit every domain stands on. It imports nothing of the domains.
export * from './digest/index.js';
export * from './fs/index.js';
export * from './input/index.js';
export * from './json/index.js';
export * from './package/index.js';
export * from './refusal/index.js';
export * from './shell/index.js';
export * from './steps/index.js';
