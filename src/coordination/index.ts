export { Orchestrator, type OrchestratorOptions, type RunOptions } from './orchestrator.js';
export {
  defaultCoordinationSettings,
  systemClock,
  type AgentSpec,
  type Clock,
  type CoordinationSettings,
  type HistoryTurn,
  type NoveltyRequirement,
} from './settings.js';
export { jaccardSimilarity } from './novelty.js';
export { workflowToolDefinitions, NEW_ANSWER, VOTE } from './workflow-tools.js';
export { noTools } from './tool-step.js';
