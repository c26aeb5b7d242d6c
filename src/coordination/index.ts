export { Orchestrator, type OrchestratorOptions, type RunOptions, type RunStream } from './orchestrator.js';
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
export type { FinalAnswerStrategy, VotingSensitivity } from './settings.js';
export {
  CRITERIA_PRESETS,
  PRESET_CRITERIA,
  type ChecklistSettings,
  type CriteriaInput,
  type CriteriaPreset,
  type CriterionInput,
} from './quality/criteria.js';
export {
  candidateOrder,
  demotedCriteria,
  evaluateGate,
  type GateInput,
  type GateResult,
} from './quality/gate.js';
export {
  replayStepRecord,
  stepStanding,
  type StepRecord,
  type StepRequest,
  type StepStanding,
} from './step-action.js';
export { MAX_STOP_CONTINUATIONS } from './stop-gate.js';
