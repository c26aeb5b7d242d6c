import type { Capability } from '../capability/index.js';

/**
 * Task plans (docs/task-plans.md, `orchestrator.coordination.enable_agent_task_planning`): MassGen's
 * nine planning tools for every agent built from the config, its plan saved in its workspace.
 */
export const taskPlanCapability: Capability = {
  name: 'task plans',
  uses: (config, options) => config.orchestrator.coordination.enable_agent_task_planning && !options.agents,
  load: () => import('./task-plan-capability.js'),
};
