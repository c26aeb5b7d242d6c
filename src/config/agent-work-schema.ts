import { z } from 'zod';

/**
 * `orchestrator.coordination` keys (MassGen's names) for how agents organise their own work: task
 * plans (docs/task-plans.md) and `ask_others` (docs/ask-others.md). Spread into the coordination
 * schema as one block.
 */
export const agentWorkCoordinationKeys = {
  /** MassGen's nine planning tools for every agent (`create_task_plan`, `add_task`, …). */
  enable_agent_task_planning: z.boolean().default(false),
  /** Also keep the plan as Markdown (`tasks/plan.md`) beside `tasks/plan.json` in the workspace. */
  task_planning_filesystem_mode: z.boolean().default(false),
  /** Most tasks in one agent's plan: a model (or a prompt injected into it) cannot grow it further. */
  max_tasks_per_plan: z.int().min(1).max(1000).default(50),
  /**
   * `ask_others(question, target_agents?)`: `agents` asks peers (each answers with one extra call of
   * its own model), `human` asks the person watching (web UI, live view). false/absent: no tool.
   */
  broadcast: z.union([z.literal(false), z.enum(['agents', 'human'])]).default(false),
  /** Seconds a question waits for its answers. */
  broadcast_timeout: z.number().positive().max(86_400).default(300),
  /** Questions one agent may ask in a run. */
  max_broadcasts_per_agent: z.int().min(1).max(1000).default(10),
};
