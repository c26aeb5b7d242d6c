export { prepareRunHooks, type RunHooks, type RunHooksOptions } from './run-hooks.js';
export { projectHookFiles } from './project-hooks.js';
