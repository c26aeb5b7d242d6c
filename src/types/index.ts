export * from './errors.js';
export * from './messages.js';
export * from './usage.js';
export * from './backend.js';
export * from './tool.js';
export * from './events.js';
export * from './run-state.js';
export * from './run-result.js';
