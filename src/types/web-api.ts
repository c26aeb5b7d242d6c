import { z } from 'zod';
import type { RunEvent } from './events.js';
import { MAX_STEERING_TEXT_LENGTH } from './steering-events.js';

/**
 * The web UI's wire contract (`massgen --web`, docs/web.md): the JSON bodies the page sends and the
 * JSON the server answers, shared by the server's routes (`src/server/web/`) and the page
 * (`web/src/api.ts`, type-only imports) so the compiler checks that both sides agree. Request bodies
 * are zod schemas: the server checks them at the boundary; the page uses their inferred types.
 */

// ---------------------------------------------------------------------------------------------------
// Requests

/** `POST /api/validate`. */
export const ValidateRequestSchema = z.strictObject({ config: z.string() });
export type ValidateRequest = z.infer<typeof ValidateRequestSchema>;

/**
 * A file dropped on the question box: its name and its bytes as base64 (no `data:` prefix). The server
 * sniffs its type from the bytes and checks its size (`src/app/request-media.ts`).
 */
export const UploadedFileSchema = z.strictObject({
  name: z.string().min(1).max(255),
  data: z.string(),
});
export type UploadedFile = z.infer<typeof UploadedFileSchema>;

/** `POST /api/runs`: a new run of `config`, a follow-up of a run, or the next turn of a saved session. */
export const StartRunRequestSchema = z.strictObject({
  question: z
    .string()
    .max(1_000_000, 'the question is longer than 1,000,000 characters: send a shorter question'),
  config: z.string().optional(),
  followUpOf: z.string().optional(),
  session: z.string().optional(),
  /** Images, audio, video or PDFs for the agents to see with the question. */
  attachments: z.array(UploadedFileSchema).max(10, 'at most 10 files may be attached').optional(),
});
export type StartRunRequest = z.infer<typeof StartRunRequestSchema>;

/** `POST /api/runs/:id/approvals`. */
export const ApprovalRequestSchema = z.strictObject({
  agentId: z.string(),
  callId: z.string(),
  approved: z.boolean(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** `POST /api/runs/:id/review`: which of the winner's changed files to apply. */
export const ReviewRequestSchema = z.strictObject({
  reviewId: z.string(),
  apply: z.union([z.enum(['all', 'none']), z.array(z.string()).max(10_000)]),
});
export type ReviewRequest = z.infer<typeof ReviewRequestSchema>;

/** `POST /api/runs/:id/messages`: a steering message to every agent, or to `agentId` only. */
export const SteeringMessageRequestSchema = z.strictObject({
  text: z
    .string()
    .refine((text) => text.trim().length > 0, 'the message is empty')
    .refine(
      (text) => text.trim().length <= MAX_STEERING_TEXT_LENGTH,
      `the message is longer than ${MAX_STEERING_TEXT_LENGTH} characters`,
    ),
  agentId: z.string().optional(),
});
export type SteeringMessageRequest = z.infer<typeof SteeringMessageRequestSchema>;

/** `POST /api/runs/:id/questions/:questionId`: the human's answer to an `ask_others` question. */
export const QuestionAnswerRequestSchema = z.strictObject({
  text: z.string().refine((text) => text.trim().length > 0, 'the answer is empty'),
});
export type QuestionAnswerRequest = z.infer<typeof QuestionAnswerRequestSchema>;

/** `POST /api/runs/:id/answer-now`: an empty object. */
export const AnswerNowRequestSchema = z.strictObject({});
export type AnswerNowRequest = z.infer<typeof AnswerNowRequestSchema>;

// ---------------------------------------------------------------------------------------------------
// Responses

/** Every error answer: `{ error }`, plus details on some (a refused start lists its `problems`). */
export interface ApiErrorBody {
  error: string;
  problems?: WebStartProblem[];
  diagnostics?: WebDiagnostic[];
  report?: WebValidationReport;
}

/** `{ ok: true }`: cancel, approvals, review. */
export interface OkResponse {
  ok: true;
}

/**
 * Something a config needs on this machine besides keys: a local model file (to download, or missing)
 * or a local server (Ollama, vLLM, …) that does not answer.
 */
export interface ConfigNeed {
  kind: 'model' | 'server';
  /** The agents concerned. */
  agents: string[];
  /** A few words for the picker, e.g. `no server at localhost:11434/v1`, `downloads 1.1 GB first`. */
  summary: string;
  /** One line: what is missing and how to get it. */
  message: string;
  /** A model download's size in bytes, when the hub gives it. */
  bytes?: number;
}

/** One entry of `GET /api/configs`: a config the page may offer, and whether it can run here. */
export interface WebConfigChoice {
  /**
   * What the page sends back: `@examples/NAME`, a path relative to the working directory, or (the
   * user-level config, `source: "user"`) an absolute path.
   */
  ref: string;
  label: string;
  source: 'flag' | 'project' | 'user' | 'example';
  /**
   * False when it cannot start now: a key it needs is not set, or something in `needs` is not there.
   * Older servers leave it out: taken as runnable.
   */
  runnable?: boolean;
  /** What it lacks to run, e.g. `OPENAI_API_KEY`. */
  missing?: string[];
  /** Set when the config itself has a problem (its first). */
  error?: string;
  /** What it needs on this machine that is not there: a local model (to download), a local server. */
  needs?: ConfigNeed[];
  /** The config `POST /api/runs` uses when it names none: the one the CLI would use here. */
  default?: boolean;
}
export type ConfigsResponse = WebConfigChoice[];

/** One reason a run could not start, with how to fix it. */
export interface WebStartProblem {
  /** The agent concerned, when there is one. */
  agentId?: string;
  /** The environment variable to set, when that is the fix. */
  key?: string;
  message: string;
  /** What to do about it. */
  hint?: string;
  /** The config key, dotted, when there is one. */
  path?: string;
}

/** One problem of a config file. */
export interface WebDiagnostic {
  path: string;
  message: string;
  hint?: string;
  line?: number;
  column?: number;
}

/** `POST /api/validate`: what `massgen --validate` reports, with its lines as printed. */
export interface WebValidationReport {
  file: string;
  valid: boolean;
  errors: WebDiagnostic[];
  warnings: WebDiagnostic[];
  agents?: { id: string; backend: string; model: string }[];
  sandbox?: string | null;
  /** The same lines `massgen --validate` prints. */
  errorLines: string[];
  warningLines: string[];
}

/** A run the server holds (`POST /api/runs` answers one, 201). */
export interface LiveRun {
  id: string;
  kind: 'live';
  question: string;
  config: string;
  sessionKey: string;
  done: boolean;
  error: string | null;
}

/** A finished (or interrupted) run found in `.massgen/massgen_logs/`. */
export interface PastRun {
  /** The log folder's name, e.g. `log_20261124_101500_123456`. */
  id: string;
  question: string;
  status: string | null;
  startedAt: string | null;
  winner: string | null;
}

/** A saved session (`.massgen/sessions/<id>/`) that the page can continue. */
export interface PastSession {
  id: string;
  firstQuestion: string | null;
  turnCount: number;
  updatedAt: string;
}

/** `GET /api/runs`. */
export interface RunsResponse {
  live: LiveRun[];
  past: PastRun[];
  sessions: PastSession[];
}

/** A folder a run's files can be browsed in (`GET /api/runs/:id/roots`). */
export interface FileRoot {
  /** What `?root=` takes: `log` or `workspace:AGENT`. */
  name: string;
  label: string;
}
export type RootsResponse = FileRoot[];

/** `GET /api/runs/:id`: a live run with its events so far, or a past one read from its log. */
export interface RunDetailResponse {
  id: string;
  kind: 'live' | 'past';
  done: boolean;
  events: RunEvent[];
  error?: string | null;
  /** Why it could not start, one entry a problem (servers that know them). */
  problems?: WebStartProblem[];
  question?: string;
  config?: string;
  sessionKey?: string;
  /** A past run's folders. */
  roots?: FileRoot[];
}

/** `POST /api/runs/:id/messages` and `…/answer-now` (202): `seq` is the `human.message` event's. */
export interface SteeringResponse {
  ok?: true;
  seq?: number;
}

/** One entry of a folder listing (`GET /api/runs/:id/tree`). */
export interface FileEntry {
  /** Path relative to the root, with `/` separators. */
  path: string;
  kind: 'file' | 'folder';
  size: number;
}

/** A file's content for a preview, or why there is none (`GET /api/runs/:id/file`). */
export type FilePreview =
  | { kind: 'text'; path: string; size: number; content: string }
  | { kind: 'binary'; path: string; size: number }
  | { kind: 'too_large'; path: string; size: number; limit: number };

/** An eval's output folder found in the project (`GET /api/evals`, one entry). */
export interface PastEval {
  /** The folder relative to the working directory, with `/`: `eval-output`, `.massgen/evals/gpqa`. */
  id: string;
  dataset: string;
  config: string;
  scorer: string;
  questions: number;
  /** The team's accuracy (0..1). */
  teamAccuracy: number | null;
  /** When the report was written (ISO 8601). */
  writtenAt: string;
  hasChart: boolean;
}
export type EvalsResponse = PastEval[];

/** One system's row of an eval report. */
export interface EvalSystemRow {
  name: string;
  correct: number;
  n: number;
  accuracy: number;
  ci95: { low: number; high: number };
  tokensPerQuestion: number | null;
  costUsdPerQuestion: number | null;
  vsTeam: { teamOnly: number; baselineOnly: number; pValue: number } | null;
}

/**
 * `GET /api/evals/report?id=`: the eval's `eval-report.json` without its per-question answers (the
 * server passes the file through: this is the shape `massgen eval` writes).
 */
export interface EvalReportResponse {
  dataset?: string;
  config?: string;
  scorer?: string;
  summary: { questions: number; systems: EvalSystemRow[] };
}
