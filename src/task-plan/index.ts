/** Task plans for agents (docs/task-plans.md): the pure plan, its files and MassGen's nine tools. */
export * from './plan-graph.js';
export { loadPlan, savePlan, PLAN_FOLDER, PLAN_JSON, PLAN_MARKDOWN } from './plan-files.js';
export { planMarkdown } from './plan-markdown.js';
export { taskPlanToolProvider, TASK_PLAN_TOOLS, type TaskPlanOptions } from './plan-tools.js';
