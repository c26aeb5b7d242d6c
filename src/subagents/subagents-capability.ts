import type { CapabilityParts, RunContext } from '../capability/index.js';
import { prepareSubagents } from './index.js';

/**
 * Subagents (docs/subagents.md, `orchestrator.coordination.enable_subagents`): every agent built from
 * the config gets the subagent tools first among its own; checkpoints and the subagents' logs go inside
 * the run's log folder once it exists.
 */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const subagents = prepareSubagents(run.config, {
    env: run.env,
    projectDir: run.cwd,
    baseDir: run.baseDir,
    workspaceOf: (id) => run.sandboxes.get(id)?.workspace ?? null,
  });
  return {
    equip: ({ agent }) => ({ first: [subagents.providerFor(agent.id)] }),
    logFolder: (dir) => subagents.setLogDir(dir),
  };
}
