/**
 * arbiter: the model proposes, code decides. The public API; each area's
 * internals stay behind its own index.
 */
export * from './context/index.js';
export * from './core/index.js';
export * from './errors/index.js';
export * from './evaluation/index.js';
export * from './events/index.js';
export * from './gate/index.js';
export * from './loop/index.js';
export * from './models/index.js';
export * from './observe/index.js';
export * from './store/index.js';
export * from './tools/index.js';
export * from './validation/index.js';
