import type { Capability } from '../capability/index.js';
import type { MassGenConfig } from '../config/index.js';

/** `memory.enabled`, or MassGen's filesystem memory mode, which turns memory on by itself. */
export const memoryOn = (config: MassGenConfig): boolean =>
  config.memory.enabled || config.orchestrator?.coordination?.enable_memory_filesystem_mode === true;

/**
 * Whether agents' `save_memory` calls may wait for a person (`memory.save: ask`): the views then get
 * ready to ask. Where nobody can answer, the run refuses those calls itself and nothing waits.
 */
export function memorySaveAsks(config: MassGenConfig): boolean {
  // Tolerant of partial configs (views are tested with stubs).
  return config.memory?.save === 'ask' && config.memory.tools && memoryOn(config);
}

/**
 * Persistent memory (docs/memory.md): the store opened and the question's memories retrieved before
 * the agents are built, `search_memory`/`save_memory`, the memories in each system prompt, and the
 * extraction after the run. Not in step mode: one agent's one action is not a finished run to learn
 * from. LanceDB and the embedders load only with it.
 */
export const memoryCapability: Capability = {
  name: 'memory',
  uses: (config, options) => memoryOn(config) && !options.step,
  load: () => import('./memory-capability.js'),
};
