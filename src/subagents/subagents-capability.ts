import type { CapabilityParts, RunContext } from '../capability/index.js';
import { readPreviousSubagents } from './checkpoint-restore.js';
import { prepareSubagents } from './index.js';

/**
 * Subagents (docs/subagents.md, `orchestrator.coordination.enable_subagents`): every agent built from
 * the config gets the subagent tools first among its own; checkpoints and the subagents' logs go inside
 * the run's log folder once it exists. The next turn of a session (`--continue`) takes over what the
 * previous turn's subagents left in its log folder: a checkpoint it refuses is a `run.warning`.
 */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const subagents = prepareSubagents(run.config, {
    env: run.env,
    projectDir: run.cwd,
    baseDir: run.baseDir,
    workspaceOf: (id) => run.sandboxes.get(id)?.workspace ?? null,
    launcher: run.options.subagentLauncher,
  });
  const from = run.options.previousLogDir ?? null;
  const previous =
    from === null
      ? null
      : await readPreviousSubagents(from, {
          agentIds: new Set(run.config.agents.map((a) => a.id)),
          typeNames: new Set(subagents.types.keys()),
        });
  return {
    equip: ({ agent }) => ({ first: [subagents.providerFor(agent.id)] }),
    ...(previous && previous.refused.length > 0 ? { warnings: previous.refused } : {}),
    logFolder: (dir) => {
      subagents.setLogDir(dir);
      // Started once the log folder exists, so the re-started subagents' checkpoints and logs go in it.
      if (from !== null && previous && previous.checkpoints.length > 0)
        void subagents.manager.restore(previous.checkpoints, from);
    },
  };
}
