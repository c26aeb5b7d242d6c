import { dockerAvailable } from '../tools/execute-command/index.js';
import { createPathChecker } from '../tools/permissions/index.js';
import type { MassGenConfig } from '../config/index.js';
import { ConfigError } from '../types/errors.js';
import type { ContextPathInfo, RunWorkspaces } from '../workspace/index.js';
import type { AgentSandbox } from './build-tools.js';
import { prepareWorkspaces } from './build-workspaces.js';
import type { Env } from './build-agents.js';

/**
 * Everything agents with a workspace need before the run starts (their config already checked by
 * `checkWorkspaceConfig`): the folders (created now), one path policy per agent (its workspace, its
 * peers' snapshots, the context paths, the previous turn's result), and — for
 * `execution_mode: docker` — a working Docker engine, else a config error.
 */
export async function prepareSandboxes(
  config: MassGenConfig,
  env: Env,
  options: { projectDir: string; contextPaths: readonly ContextPathInfo[]; previousWorkspace: string | null },
): Promise<{ workspaces: RunWorkspaces | null; sandboxes: Map<string, AgentSandbox> }> {
  const sandboxes = new Map<string, AgentSandbox>();
  const docker = config.agents.findIndex(
    (a) => a.backend.execution_mode === 'docker' && a.backend.enable_code_execution === true,
  );
  // Every check comes before any folder is created (or emptied).
  if (docker !== -1) {
    const available = await dockerAvailable(env);
    if (!available.ok) {
      throw new ConfigError(
        `agents[${docker}].backend.execution_mode: docker, but no Docker engine is available here: ${available.reason}`,
        {
          path: `agents[${docker}].backend.execution_mode`,
          hint: 'start Docker, or use execution_mode: local',
        },
      );
    }
  }
  const workspaces = await prepareWorkspaces(config, options);
  if (!workspaces) return { workspaces, sandboxes };
  for (const agent of config.agents) {
    const workspace = workspaces.workspaceOf(agent.id);
    if (workspace === null) continue;
    const checkPath = createPathChecker({
      workspace,
      peerSnapshots: workspaces.peersDirOf(agent.id),
      contextPaths: workspaces.contextPaths,
      readOnly: workspaces.previousWorkspace ? [workspaces.previousWorkspace] : [],
    });
    sandboxes.set(agent.id, { workspace, checkPath, env });
  }
  return { workspaces, sandboxes };
}
