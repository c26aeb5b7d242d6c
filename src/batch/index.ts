/**
 * Batch runs: many questions from a JSON Lines file, one result line each, resumable. A view over the
 * library API (`runMassGen`); where the runs execute is an {@link BatchExecutor} — this process, or
 * queue workers (`src/queue/`, loaded only with `--queue`).
 */
export { runBatch, type RunBatchOptions, type BatchProgress, type BatchSummary } from './run-batch.js';
export {
  readBatchInput,
  BatchInputLineSchema,
  type BatchItem,
  type BatchInput,
  type InputProblem,
} from './input-lines.js';
export { openResultFile, type ResultFile, type OpenResultFileOptions } from './result-file.js';
export {
  BatchResultLineSchema,
  RunOutcomeSchema,
  BatchTokensSchema,
  trackOutcome,
  outcomeFrom,
  failedOutcome,
  lineFailed,
  noTokens,
  type BatchResultLine,
  type BatchTokens,
  type RunOutcome,
} from './result-line.js';
export {
  readAttachments,
  questionWithAttachments,
  MAX_ATTACHMENT_BYTES,
  type Attachment,
} from './attachments.js';
export type { BatchExecutor, BatchJob, JobEnd } from './executor.js';
export {
  inProcessExecutor,
  sharedLimiters,
  configProblem,
  type InProcessExecutorOptions,
} from './in-process-executor.js';
