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
export {
  replayStepRecord,
  stepStanding,
  type StepRecord,
  type StepRequest,
  type StepStanding,
} from './step-action.js';
