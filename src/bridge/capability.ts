import path from 'node:path';
import { findBackendFactory } from '../backends/registry.js';
import type { Capability } from '../capability/index.js';
import type { MassGenConfig } from '../config/index.js';

/** A custom tool written in Python: the run's Python host runs it. */
export const isPythonToolPath = (file: string): boolean => path.extname(file).toLowerCase() === '.py';

/** Whether some agent has a custom tool written in Python. */
const usesPythonTools = (config: MassGenConfig): boolean =>
  config.agents.some((a) => a.backend.custom_tools.some((t) => isPythonToolPath(t.path)));

/**
 * Python custom tools (docs/tools.md): one `python3` per run over JSON lines, started when the
 * first Python tool loads and stopped with the run. They join the agent's custom tools after the
 * TypeScript ones.
 */
export const pythonToolsCapability: Capability = {
  name: 'python-tools',
  uses: (config, options) => usesPythonTools(config) && !options.agents,
  load: () => import('./python-tools-capability.js'),
  checks: async () => (await import('./python-tools-capability.js')).problems,
};

/**
 * Agents from other frameworks (docs/adapters.md): the TypeScript ones' modules and the
 * adapters under `adapters:` imported, the Python ones started in hosts of their own (inside their
 * sandboxes), so a missing module or package is a config error before the run starts.
 */
export const externalAgentsCapability: Capability = {
  name: 'external-agents',
  uses: (config, options) =>
    config.agents.some((a) => findBackendFactory(a.backend.type)?.external === true) && !options.agents,
  load: () => import('./external-agents-capability.js'),
  checks: async () => (await import('./external-agents-capability.js')).problems,
};
