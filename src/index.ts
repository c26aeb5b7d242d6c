/**
 * massgen — multi-agent scaling for LLMs. The public library surface.
 * @packageDocumentation
 */
import { loadAllBackendFactories } from './backends/index.js';
import type { BackendFactory } from './types/backend.js';
export { runMassGen, prepareRun, type MassGenOptions, type PreparedRun } from './app/run-massgen.js';
// The interface a run capability implements (docs/architecture.md, "How to add a capability").
export * from './capability/index.js';
export { validateConfig, type ValidationReport } from './app/validate.js';
export {
  readMediaFile,
  loadAttachments,
  mediaLabel,
  type AttachmentInput,
  type LoadedAttachments,
} from './media/index.js';
export type { MediaKind, MediaPart, MediaRef } from './types/media.js';
export {
  runStep,
  readStepStanding,
  type StepOptions,
  type StepOutput,
  type StepActionOutput,
  type StandingOutput,
} from './app/step-run.js';
export { StepSessionSchema, STEP_SESSION_VERSION, type StepSession } from './app/step-session.js';
export {
  runBatch,
  BatchInputLineSchema,
  BatchResultLineSchema,
  type RunBatchOptions,
  type BatchProgress,
  type BatchSummary,
  type BatchResultLine,
  type BatchExecutor,
  type BatchJob,
  type JobEnd,
  type RunOutcome,
} from './batch/index.js';
export {
  runEval,
  readDataset,
  EvalLineSchema,
  type RunEvalOptions,
  type EvalOutcome,
  type EvalSummary,
  type SystemSummary,
  type ScorerName,
} from './eval/index.js';
export {
  Orchestrator,
  defaultCoordinationSettings,
  type AgentSpec,
  type Clock,
  type CoordinationSettings,
  type ChecklistSettings,
  type CriteriaInput,
  type FinalAnswerStrategy,
  type HistoryTurn,
  type OrchestratorOptions,
  type RunOptions,
  type RunStream,
  stepStanding,
  type StepRecord,
  type StepRequest,
  type StepStanding,
} from './coordination/index.js';
export {
  loadConfigFile,
  parseConfig,
  validateConfigFile,
  ConfigValidationError,
  MassGenConfigSchema,
  type MassGenConfig,
  type AgentConfig,
  type BackendConfig,
  type ConfigDiagnostic,
} from './config/index.js';
export {
  backendFactoryFor,
  findBackendFactory,
  backendTypes,
  createLanguageModelBackend,
  loadBackendFactories,
} from './backends/index.js';

/**
 * Every backend factory, in registry order. Loading the library loads them all, so `findBackendFactory`
 * answers at once for any type; the CLI loads only the backends a run's config uses.
 */
export const backendFactories: readonly BackendFactory[] = await loadAllBackendFactories();
export { createRunLogWriter, type RunLogWriter } from './logging/index.js';
export * from './types/index.js';
