export {
  createCommandToolProvider,
  EXECUTE_COMMAND_TOOL,
  type CommandToolOptions,
} from './command-tool-provider.js';
export { analyseCommand, type CommandPolicyOptions, type CommandVerdict } from './command-policy.js';
export {
  CONTAINER_WORKSPACE,
  dockerAvailable,
  dockerRunArgs,
  type DockerRunOptions,
  type DockerSettings,
} from './docker.js';
export { scrubEnv } from './scrub-env.js';
