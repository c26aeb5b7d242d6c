import os from 'node:os';
import path from 'node:path';
import type { Env } from '../types/env.js';
import type { MassGenConfig } from '../config/index.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import { inProcessLauncher } from './child-run.js';
import { SubagentManager, type ChildLauncher } from './subagent-manager.js';
import { subagentToolProvider } from './subagent-tools.js';
import { loadSubagentTypes, type SubagentType } from './subagent-types.js';

export { SubagentManager, type ChildLauncher, type SubagentLimits } from './subagent-manager.js';
export { SUBAGENT_TOOL_NAMES, subagentToolProvider } from './subagent-tools.js';
export { loadSubagentTypes, parseSubagentFile, type SubagentType } from './subagent-types.js';
export { readCheckpoint, subagentDir, type SubagentCheckpoint } from './checkpoint.js';
export { readPreviousSubagents, type PreviousSubagents } from './checkpoint-restore.js';
export { childConfig, subagentTeam } from './child-run.js';

/** A run's subagents, when `orchestrator.coordination.enable_subagents` is on. */
export interface RunSubagents {
  manager: SubagentManager;
  /** The subagent types this run knows (shipped and the project's). */
  types: ReadonlyMap<string, SubagentType>;
  /** The subagent tools of one agent. */
  providerFor(agentId: string): ToolProvider;
  /** Set once the parent's log folder exists: checkpoints and subagents' logs go inside it. */
  setLogDir(dir: string | null): void;
}

/**
 * Sets up subagents for a run: the types (shipped and the project's `.agent/subagent_types/`), the
 * limits from the config, and a launcher that starts each subagent as a massgen run in this process.
 * Throws an Error naming the file for a malformed `SUBAGENT.md`.
 */
export function prepareSubagents(
  config: MassGenConfig,
  options: {
    env: Env;
    projectDir: string;
    baseDir: string;
    workspaceOf(agentId: string): string | null;
    /** Starts each subagent elsewhere (a queue worker's jobs); default: in this process. */
    launcher?: ChildLauncher | undefined;
  },
): RunSubagents {
  const coordination = config.orchestrator.coordination;
  const types = loadSubagentTypes(options.projectDir);
  let logDir: string | null = null;
  const manager = new SubagentManager({
    limits: {
      defaultTimeout: coordination.subagent_default_timeout,
      minTimeout: coordination.subagent_min_timeout,
      maxTimeout: Math.max(coordination.subagent_min_timeout, coordination.subagent_max_timeout),
      maxConcurrent: coordination.subagent_max_concurrent,
      maxDepth: coordination.max_subagent_depth,
    },
    types,
    logDir: () => logDir,
    workspaceOf: options.workspaceOf,
    launch:
      options.launcher ??
      inProcessLauncher({
        config,
        env: options.env,
        baseDir: options.baseDir,
        workspaceOf: options.workspaceOf,
        fallbackWorkDir: (id) =>
          logDir
            ? path.join(logDir, 'subagents', id, 'work')
            : path.join(os.tmpdir(), `massgen-subagent-${id}`),
      }),
  });
  return {
    manager,
    types,
    providerFor: (agentId) => subagentToolProvider(manager, agentId, types),
    setLogDir: (dir) => {
      logDir = dir;
    },
  };
}
