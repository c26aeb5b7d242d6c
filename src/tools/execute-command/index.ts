export {
  createCommandToolProvider,
  DEFAULT_MAX_FILE_SIZE_BYTES,
  EXECUTE_COMMAND_TOOL,
  type CommandToolOptions,
  type ExecutionMode,
} from './command-tool-provider.js';
export { guardCommand, type CommandVerdict } from './command-guard.js';
export {
  CONTAINER_WORKSPACE,
  dockerAvailable,
  dockerRunArgs,
  type DockerRunOptions,
  type DockerSettings,
} from './docker.js';
export { bwrapArgs, homeLayout, type SandboxLayout } from './sandbox.js';
export { sandboxSupport, type SandboxSupport } from './sandbox-support.js';
export { DEFAULT_MAX_MEMORY_BYTES, memoryBound, processBound } from './limits.js';
export { scrubEnv } from './scrub-env.js';
