import type { AskOthersDesk } from '../ask-others/index.js';
import type { Capability } from '../capability/index.js';
import type { MassGenConfig } from '../config/index.js';
import type { AgentSpec, HistoryTurn, StepRequest } from '../coordination/index.js';
import type { RunTermination } from '../logging/index.js';
import type { AttachmentInput } from '../media/index.js';
import type { ToolsByAgent } from '../tools/define-tool.js';
import type { DownloadProgress } from '../types/backend.js';
import type { RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import type { ChildLauncher } from '../types/subagent-launch.js';
import type { CommonRunOptions } from '../types/run-options.js';
import type {
  AnswerNowResult,
  SteeringMessage,
  SteeringSource,
  SteerResult,
} from '../types/steering-events.js';
import type { ToolApprovalDecision, ToolApprover } from '../types/tool.js';
import type { Clock } from '../util/clock.js';
import type { CallLimiterFactory } from '../util/rate-limiter.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import type { ReviewSource } from '../workspace/index.js';
import type { ExtraContextPath } from './extra-context-paths.js';
import type { ReviewChoice, ReviewMode } from './review-desk.js';

/** Options of {@link prepareRun} and {@link runMassGen}: the common ones, and a run's own. */
export interface MassGenOptions extends CommonRunOptions {
  question: string;
  /** A validated config, a plain config object (validated here), or the path of a YAML/JSON file. */
  config: MassGenConfig | Record<string, unknown> | string;
  /** Use these agents instead of building backends from the config (e.g. `ScriptedBackend`s). */
  agents?: AgentSpec[];
  /**
   * Whether code and skills a config names may come from `cwd` when they are not beside the config
   * file (as MassGen resolves them). Default true; the CLI passes false for a working folder the user
   * has not trusted (docs/security.md, "Project folders"), and the run notes what it left out.
   */
  projectTrusted?: boolean;
  /**
   * The `.env` files `env` was read from: shown empty in every sandbox and refused to every tool.
   * Default: `<cwd>/.env` and the user-level `~/.config/massgen/.env`, those that exist.
   */
  envFiles?: readonly string[];
  /** Earlier turns of a multi-turn session. */
  history?: readonly HistoryTurn[];
  /**
   * Files that go with the question (docs/multimodal.md), after the config's `attachments:`: paths
   * (relative to `cwd`), http(s) URLs, or `{ name, data }`. Text files are inlined into the question;
   * images, audio, video and PDFs go as file parts to each agent whose model takes the kind, and the
   * others read a note naming them.
   */
  attachments?: readonly AttachmentInput[];
  /**
   * Let attachment URLs reach private addresses (this machine, the LAN, link-local): by default only
   * public ones are fetched, on every redirect hop (`--allow-private-urls`).
   */
  allowPrivateUrls?: boolean;
  /** Folders or files added to the config's `orchestrator.context_paths` (relative to `cwd`). */
  contextPaths?: readonly ExtraContextPath[];
  /**
   * Attach each `@path` of the question read-only as a context path (the CLI's one-question runs; the
   * rule is in docs/hooks.md). A `@path` that looks like a path but does not exist is a `ConfigError`.
   */
  atPaths?: boolean;
  /** Step mode: one agent's one action against a recorded session, instead of a whole run (docs/step-mode.md). */
  step?: StepRequest;
  /** Folder holding the log folders. Default: `<cwd>/.massgen/massgen_logs`. */
  logRoot?: string;
  orchestratorTimeoutSeconds?: number;
  /**
   * `--eval-criteria FILE`: the checklist's criteria (`voting_sensitivity: checklist_gated`) from a YAML
   * or JSON file, relative to `cwd`; the config's `checklist_criteria_inline` still comes first.
   */
  evalCriteria?: string;
  /** Called for every event, in order. */
  onEvent?: (event: RunEvent) => void;
  /** Progress of model downloads during preparation (the CLI draws a progress bar). */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** The previous turn's winning workspace (sessions): read-only for every agent of this run. */
  previousWorkspace?: string | null;
  /**
   * The previous turn's log folder (sessions): its subagents' checkpoints are read back, finished ones
   * kept by id and running ones re-started (docs/subagents.md).
   */
  previousLogDir?: string | null;
  /**
   * Starts each subagent instead of running it in this process (docs/subagents.md): a queue worker
   * passes one, so a parent running as a queue job has its subagents run as queue jobs of their own.
   */
  subagentLauncher?: ChildLauncher;
  /** Extra tools for agents, by agent id (made with `defineTool` from `massgen/tools`). */
  tools?: ToolsByAgent;
  /**
   * Capabilities of your own, prepared after massgen's (docs/library.md, "Capabilities"): each adds
   * tools, prompt sections, warnings or event handlers to the runs that use it.
   */
  capabilities?: readonly Capability[];
  /**
   * Decides on each tool call before it runs (`tool.approval.requested` → `tool.approval.resolved`).
   * Without it, `orchestrator.auto_approve: false` holds calls until {@link PreparedRun.respondToApproval}.
   */
  onToolApproval?: ToolApprover;
  /**
   * A person can answer approval questions while the run goes (the CLI on a terminal, the web UI, a
   * caller answering {@link PreparedRun.respondToApproval}). With `memory.save: ask` each `save_memory`
   * call then waits for them; without, it is refused at once with a message saying why. Default: true
   * when `onToolApproval` is given.
   */
  interactive?: boolean;
  /**
   * How the winner's changes to isolated context paths (`write_mode: worktree`) are applied: `apply`
   * (default) all of them; `all` / `none` as `--review=all|none`; `ask` waits for
   * {@link PreparedRun.respondToReview} (the terminal's prompt, the web UI, the file handshake).
   */
  review?: ReviewMode;
  /** `--keep-worktrees`: leave the agents' checkouts and branches in place after the run. */
  keepWorktrees?: boolean;
  /** Time and randomness for the engine, the logs and sessions. Default: the system clock. */
  clock?: Clock;
  /**
   * Makes the limiter for each model with `rate_limits`, so limits hold across runs (a batch) or
   * processes (queue workers, through Redis). Default: each run limits itself alone.
   */
  limiters?: CallLimiterFactory;
}

/** A run that is ready to start: config validated, backends built, log folder created. */
export interface PreparedRun {
  readonly config: MassGenConfig;
  readonly question: string;
  /** Absolute log folder, or null with logging off. */
  readonly logDir: string | null;
  readonly statusPath: string | null;
  /** Runs the protocol, yielding its events; logs are written as a side effect. Call once. */
  stream(): AsyncGenerator<RunEvent, RunResult, undefined>;
  /** Resolves when the stream has ended and the logs are flushed. */
  readonly result: Promise<RunResult>;
  /** Synchronous last-resort log flush for process exit handlers. */
  flushLogsSync(): void;
  /**
   * For a process that must exit now (second Ctrl-C, crash): records the outcome as the run's end when
   * it has not ended yet, and writes the logs synchronously, so they always end in a terminal state.
   */
  terminateSync(outcome: RunTermination): void;
  /** Masks every secret this run knows (keys, tokens, header values, URL passwords). */
  readonly scrubber: SecretScrubber;
  /**
   * Answers a `tool.approval.requested` event (with `auto_approve: false` and no `onToolApproval`).
   * Returns false when no call with that id is waiting.
   */
  respondToApproval(agentId: string, callId: string, decision: ToolApprovalDecision): boolean;
  /**
   * Answers a `changes.proposed` event that awaits review (`review: 'ask'`): apply every file, none, or
   * these (relative to the context path). `by` is recorded (`terminal`, `web`, `file`; default `caller`).
   * Returns false when no review with that id is waiting.
   */
  respondToReview(reviewId: string, files: ReviewChoice, by?: ReviewSource): boolean;
  /**
   * Sends every agent (or `message.agentId`) a message from the user while the run goes
   * (`human.message`; each agent reads it at its next step). Refused before `stream()` has started the
   * run and after it finished. See docs/protocol.md "Steering".
   */
  steer(message: SteeringMessage): SteerResult;
  /** Stops coordination and presents the best current answer (`coordination.answer_now`). */
  answerNow(source?: SteeringSource): AnswerNowResult;
  /**
   * The human's answer to an `ask_others` question (`ask_others.asked` with `mode: human`); `source`
   * is recorded (`web`, `terminal`, `api`). See docs/ask-others.md.
   */
  answerQuestion(questionId: string, text: string, source?: string): AnswerQuestionResult;
  /** The `ask_others` questions waiting for the human now, oldest first. */
  pendingQuestions(): { questionId: string; agentId: string }[];
}

/** What {@link PreparedRun.answerQuestion} says. */
export type AnswerQuestionResult = ReturnType<AskOthersDesk['answer']>;
