import type { CapabilityParts, RunContext } from '../capability/index.js';
import { taskPlanToolProvider } from './plan-tools.js';

/** Each agent's planning tools, on the plan in its workspace (carried over from the previous turn's). */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const coordination = run.config.orchestrator.coordination;
  return {
    equip: ({ sandbox }) => ({
      providers: [
        taskPlanToolProvider({
          workspace: sandbox?.workspace ?? null,
          markdown: coordination.task_planning_filesystem_mode,
          maxTasks: coordination.max_tasks_per_plan,
          previousWorkspace: run.options.previousWorkspace ?? null,
        }),
      ],
    }),
  };
}
