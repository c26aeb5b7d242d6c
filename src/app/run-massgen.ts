import path from 'node:path';
import {
  configNotes,
  loadConfigFile,
  loadDotEnv,
  maskSecrets,
  parseConfig,
  type MassGenConfig,
} from '../config/index.js';
import {
  Orchestrator,
  type AgentSpec,
  type HistoryTurn,
  type RunStream,
  type StepRequest,
} from '../coordination/index.js';
import { dotEnvFiles } from '../config/config-discovery.js';
import { withExtraContextPaths, type ExtraContextPath } from './extra-context-paths.js';
import { createRunLogWriter, type RunLogWriter, type RunTermination } from '../logging/index.js';
import { CancelledError, describeError } from '../types/errors.js';
import type { DownloadProgress } from '../types/backend.js';
import type { RunEvent, RunWarning } from '../types/events.js';
import type {
  AnswerNowResult,
  SteeringMessage,
  SteeringSource,
  SteerResult,
} from '../types/steering-events.js';
import type { RunResult } from '../types/run-result.js';
import type { RunWorkspaces } from '../workspace/index.js';
import { linkedAbortController } from '../util/abort.js';
import type { Clock } from '../util/clock.js';
import type { CallLimiterFactory } from '../util/rate-limiter.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { collectRunSecrets, runScrubber } from './secrets.js';
import type { ToolApprovalDecision, ToolApprover } from '../types/tool.js';
import type { ReviewSource } from '../workspace/index.js';
import { isolationResult, ReviewDesk, type ReviewChoice, type ReviewMode } from './review-desk.js';
import { buildToolPolicy, holdsToolCalls } from './tool-permissions.js';
import { buildAgentSpecs, prepareBackends, type Env } from './build-agents.js';
import { loadAgentCustomTools, type ToolsByAgent } from './build-tools.js';
import type { RunSkills } from './agent-skills.js';
import { configUsesSkills, loadToolFeatures } from './tool-features.js';
import type { AskOthersDesk } from '../ask-others/index.js';
import { ToolApprovalDesk } from './tool-approval-desk.js';
import { prepareSandboxes } from './sandboxes.js';
import { loadExternalAgents } from './external-agents.js';
import { startPythonAgents } from './python-agents.js';
import { harnessWarnings } from './harness-checks.js';
import { PythonHost } from '../bridge/index.js';
import { checkWorkspaceConfig } from './build-workspaces.js';
import { withUntrustedHint } from './config-relative.js';
import { coordinationSettings, loadEvalCriteria } from './coordination-settings.js';
import { runtimeVersions } from './versions.js';
import { loadRunAttachments, mediaWarnings } from './run-attachments.js';
import { questionWithAttachments, type AttachmentInput } from '../media/index.js';
import {
  harvestMemoryFolder,
  memoryFilesWarnings,
  memorySaveRules,
  rememberRun,
  seedMemoryFolders,
  startRunMemory,
  withMemoryNote,
  withMemoryTools,
} from './run-memory-setup.js';

/** Options of {@link prepareRun} and {@link runMassGen}. */
export interface MassGenOptions {
  question: string;
  /** A validated config, a plain config object (validated here), or the path of a YAML/JSON file. */
  config: MassGenConfig | Record<string, unknown> | string;
  /** Use these agents instead of building backends from the config (e.g. `ScriptedBackend`s). */
  agents?: AgentSpec[];
  /** Working directory: `.env` and `.massgen/` live here. Default: `process.cwd()`. */
  cwd?: string;
  /** Environment for `${VAR}` and API keys. Default: the process environment plus `<cwd>/.env`. */
  env?: Env;
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
  signal?: AbortSignal;
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
  /** Step mode: one agent's one action against a recorded session, instead of a whole run (docs/step-mode.md). */
  step?: StepRequest;
  /** Write `.massgen/massgen_logs/…` (default: the config's `ui.logging_enabled`). */
  logging?: boolean;
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
  /** Extra tools for agents, by agent id (made with `defineTool` from `massgen/tools`). */
  tools?: ToolsByAgent;
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

function resolveConfig(options: MassGenOptions, env: Env, cwd: string): MassGenConfig {
  if (typeof options.config === 'string') return loadConfigFile(options.config, { env, cwd });
  if (Object.isFrozen(options.config) && Array.isArray((options.config as MassGenConfig).agents)) {
    return options.config as MassGenConfig;
  }
  return parseConfig(options.config, { env, cwd, source: 'config object' });
}

/**
 * Validates the config and builds everything a run needs, without starting it.
 * Throws a `ConfigError` (exit code 1) for any problem with the input.
 */
export async function prepareRun(options: MassGenOptions): Promise<PreparedRun> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? loadDotEnv(cwd);
  const projectTrusted = options.projectTrusted !== false;
  const config = withExtraContextPaths(resolveConfig(options, env, cwd), options.contextPaths, cwd);
  const evalCriteria =
    options.evalCriteria === undefined ? undefined : loadEvalCriteria(options.evalCriteria, cwd);
  // Tool paths in a config file are relative to the file, like every other path in it.
  const baseDir = typeof options.config === 'string' ? path.dirname(path.resolve(cwd, options.config)) : cwd;
  // Cheap checks first: a bad workspace or context path must not wait for a model download.
  const pathNotes: string[] = [];
  const contextPaths = checkWorkspaceConfig(config, baseDir, { projectDir: cwd, notes: pathNotes });
  // Attachments are read (and downloaded) before any model is: a bad file fails the run at once.
  const attached = await loadRunAttachments(config, options.attachments ?? [], {
    baseDir,
    cwd,
    notes: pathNotes,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.allowPrivateUrls ? { allowPrivateUrls: true } : {}),
  });
  // `memory.enabled`: the store is opened and the question's memories retrieved before agents are built.
  // Not in step mode: one agent's one action is not a finished run to learn from.
  const memory = options.step
    ? null
    : await startRunMemory(config, {
        question: options.question,
        env,
        cwd,
        baseDir,
        interactive: options.interactive ?? options.onToolApproval !== undefined,
      });
  const memoryFilesMode = config.orchestrator.coordination.enable_memory_filesystem_mode;
  let memoryFiles = new Map<string, Map<string, string>>();
  if (!options.agents) {
    // Downloads and file checks happen now, before any agent starts, so a bad model fails cleanly.
    await prepareBackends(config, env, {
      ...(options.onDownloadProgress ? { onProgress: options.onDownloadProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  let agents = options.agents;
  // Started when the first Python custom tool loads; stopped when the run ends (or fails to start).
  const python: { host: PythonHost | null } = { host: null };
  // Python agents' hosts and user adapters: ended with the run.
  const externalClosers: (() => Promise<void>)[] = memory ? [() => memory.close()] : [];
  const closeAll = async () => {
    await Promise.all([python.host?.close(), ...externalClosers.map((close) => close().catch(() => {}))]);
  };
  let workspaces: RunWorkspaces | null = null;
  let warnings: RunWarning[] = [];
  let skills: RunSkills | null = null;
  let askOthers: AskOthersDesk | null = null;
  const reviews = new ReviewDesk(options.review ?? 'apply');
  if (!agents) {
    try {
      const custom = await loadAgentCustomTools(
        config,
        baseDir,
        withMemoryTools(config, options.tools, memory),
        {
          project: { dir: cwd, notes: pathNotes, trusted: projectTrusted },
          python: () =>
            (python.host ??= new PythonHost({
              ...(config.python ? { python: config.python } : {}),
              cwd,
              env,
            })),
        },
      );
      const externals = await loadExternalAgents(config, baseDir, {
        dir: cwd,
        notes: pathNotes,
        trusted: projectTrusted,
      });
      for (const { close } of externals.values()) if (close) externalClosers.push(close);
      const prepared = await prepareSandboxes(config, env, {
        projectDir: cwd,
        contextPaths,
        previousWorkspace: options.previousWorkspace ?? null,
        isolation: { reviewer: reviews.reviewer, keep: options.keepWorktrees === true },
        envFiles: options.envFiles ?? dotEnvFiles({ cwd, ...(options.env ? { env: options.env } : {}) }),
      });
      workspaces = prepared.workspaces;
      memoryFiles = await seedMemoryFolders(memory, memoryFilesMode, prepared.sandboxes);
      warnings = prepared.warnings;
      skills = configUsesSkills(config)
        ? (await import('./agent-skills.js')).loadRunSkills(config, {
            baseDir,
            projectDir: cwd,
            projectTrusted,
          })
        : null;
      if (skills) warnings = [...warnings, ...skills.warnings];
      const pythonAgents = await startPythonAgents(config, {
        baseDir,
        cwd,
        projectTrusted,
        env,
        sandboxes: prepared.sandboxes,
        notes: pathNotes,
      });
      externalClosers.push(pythonAgents.close);
      for (const [index, agent] of pythonAgents.agents) externals.set(index, agent);
      warnings = [...warnings, ...pythonAgents.warnings, ...harnessWarnings(config, env)];
      // ask_others: a peer answers with its own model, once the agents below are built.
      const features = await loadToolFeatures(
        config,
        skills,
        options.previousWorkspace ?? null,
        () => agents ?? [],
      );
      askOthers = features.askOthers ?? null;
      agents = buildAgentSpecs(config, env, {
        features,
        custom,
        baseDir,
        sandboxes: prepared.sandboxes,
        externals,
        skills,
        ...(options.limiters ? { limiters: options.limiters } : {}),
      });
      // Harnesses keep processes and a tool server between steps: ended with the run.
      for (const { backend } of agents) if (backend.close) externalClosers.push(() => backend.close!());
      // A file over a provider's limit stops the run here, before any request.
      warnings = [...warnings, ...mediaWarnings(attached.media, agents, { config, env })];
    } catch (error) {
      await closeAll();
      // The agents' worktrees of isolated context paths (and their branches) go with a failed start.
      await workspaces?.dispose().catch(() => undefined);
      throw withUntrustedHint(error, pathNotes);
    }
  }
  if (options.agents) warnings = [...warnings, ...mediaWarnings(attached.media, options.agents, null)];
  agents = withMemoryNote(agents, memory, memoryFilesMode && memoryFiles.size > 0);
  // MassGen keys the config used that massgen handles differently or not at all: said at run start.
  warnings = [
    ...(memory?.warnings ?? []),
    ...memoryFilesWarnings(memory, memoryFilesMode),
    ...configNotes(config).map((note) => ({
      code: 'massgen_compat',
      message: note.message,
      ...(note.path === '' ? {} : { key: note.path }),
    })),
    ...pathNotes.map((message) => ({ code: 'massgen_compat', message })),
    ...warnings,
  ];
  const overrides = {
    ...(options.orchestratorTimeoutSeconds === undefined
      ? {}
      : { orchestratorTimeoutSeconds: options.orchestratorTimeoutSeconds }),
    ...(evalCriteria === undefined ? {} : { evalCriteria }),
  };
  const scrubber = runScrubber(config, env);
  const desk = new ToolApprovalDesk();
  // `memory.save: ask` with someone to ask is one more `ask` rule, asked before the config's.
  const memoryRules = memorySaveRules(memory);
  const approver =
    options.onToolApproval ?? (holdsToolCalls(config) || memoryRules ? desk.approver : undefined);
  // Permission rules, and the audit ledger of every decision, whenever something decides on calls.
  const toolPolicy = buildToolPolicy(config, {
    held: options.onToolApproval !== undefined || !config.orchestrator.auto_approve,
    workspaces,
    contextPaths,
    ...(memoryRules ? { first: memoryRules } : {}),
  });
  const orchestratorAgents = agents;
  const orchestrator = new Orchestrator({
    agents,
    settings: coordinationSettings(config, overrides),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(approver ? { approveToolCall: approver } : {}),
    ...(toolPolicy ? { toolPolicy } : {}),
    ...(workspaces ? { workspaces } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    scrubber,
  });

  const logging = options.logging ?? config.ui.logging_enabled;
  let writer: RunLogWriter | null = null;
  if (logging) {
    try {
      writer = await createRunLogWriter({
        rootDir: options.logRoot ?? path.join(cwd, '.massgen', 'massgen_logs'),
        ...(options.clock ? { clock: options.clock } : {}),
        metadata: {
          config: maskSecrets(config, collectRunSecrets(config, env)),
          versions: runtimeVersions(),
          extra: { cwd },
        },
      });
      // status.json exists (phase "starting") before its path is handed out, e.g. printed by --automation.
      await writer.flush();
      if (workspaces) workspaces.diffDir = writer.logDir;
    } catch (error) {
      await closeAll();
      await workspaces?.dispose().catch(() => undefined);
      throw error;
    }
  }

  let live: RunStream | null = null;
  const notStarted = {
    accepted: false,
    reason: 'not_running',
    message: 'the run has not started yet',
  } as const;

  let resolveResult!: (result: RunResult) => void;
  const result = new Promise<RunResult>((resolve) => (resolveResult = resolve));
  let started = false;

  async function* stream(): AsyncGenerator<RunEvent, RunResult, undefined> {
    if (started) throw new Error('a prepared run can only be streamed once');
    started = true;
    const { controller, dispose } = linkedAbortController(options.signal);
    const events = orchestrator.run(questionWithAttachments(options.question, attached.texts), {
      signal: controller.signal,
      ...(attached.media.length > 0 ? { attachments: attached.media } : {}),
      ...(options.history ? { history: options.history } : {}),
      ...(options.step ? { step: options.step } : {}),
    });
    live = events;
    let finished: Extract<RunEvent, { type: 'run.finished' }> | null = null;
    const record = (event: RunEvent) => {
      writer?.handle(event);
      memory?.observe(event);
      askOthers?.observe(event);
      if (event.type === 'run.finished') finished = event;
      options.onEvent?.(event);
    };
    // Iterated by hand: a `for await` exit would end the orchestrator's stream before we drain it.
    const iterator = events[Symbol.asyncIterator]();
    let consumerLeft = true;
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        record(next.value);
        yield next.value;
      }
      consumerLeft = false;
    } finally {
      if (consumerLeft) {
        // The consumer stopped early (or threw): cancel, but still log the run to its end (and let
        // onEvent and the result see its run.finished, so they agree with the log).
        controller.abort(new CancelledError());
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) record(next.value);
      }
      dispose();
      await harvestMemoryFolder(memory, memoryFiles, (id) => workspaces?.workspaceOf(id) ?? null, finished);
      await rememberRun(memory, orchestratorAgents, finished, (options.history?.length ?? 0) > 0);
      const workspaceDir = await deliverWorkspace(workspaces, finished, writer);
      const proposedSkills = skills?.evolve
        ? (await import('./agent-skills.js')).saveProposedSkills(cwd, finished, workspaceDir)
        : [];
      await closeAll();
      await writer?.flush();
      resolveResult({
        ...toResult(
          finished,
          options.question,
          writer?.logDir ?? null,
          writer?.writtenFinalAnswerPath() ?? null,
        ),
        ...logWriteResult(writer),
        workspaceDir,
        ...isolationResult(workspaces),
        ...(proposedSkills.length > 0 ? { proposedSkills } : {}),
      });
    }
    return await result;
  }

  return {
    config,
    question: options.question,
    logDir: writer?.logDir ?? null,
    // Handed out only once written: a caller may read it at once (a full disk leaves none).
    statusPath: writer?.statusWritten ? writer.statusPath : null,
    stream,
    result,
    flushLogsSync: () => writer?.flushSync(),
    terminateSync: (outcome) => writer?.terminateSync(outcome),
    scrubber,
    respondToApproval: (agentId, callId, decision) => desk.respond(agentId, callId, decision),
    respondToReview: (reviewId, files, by) => reviews.respond(reviewId, files, by),
    steer: (message) => live?.steer(message) ?? notStarted,
    answerNow: (source) => live?.answerNow(source) ?? notStarted,
    answerQuestion: (questionId, text, source) =>
      askOthers?.answer(questionId, text, source) ?? {
        accepted: false,
        reason: 'unknown_question',
        message: 'this run does not ask the human (coordination.broadcast: human)',
      },
    pendingQuestions: () => askOthers?.pendingQuestions() ?? [],
  };
}

/** The first failed log write, named by its system code (`ENOSPC` for a full disk), when logs are incomplete. */
function logWriteResult(writer: RunLogWriter | null): Pick<RunResult, 'logWriteError'> {
  const error = writer?.writeError;
  if (!error) return {};
  const code = (error as NodeJS.ErrnoException).code ?? 'log_write_failed';
  return { logWriteError: { code, message: describeError(error) } };
}

/**
 * The winner's workspace is the run's deliverable: copied next to its logged answer (or left where it
 * is with logging off). The snapshots and the peers' copies go away with the run.
 */
async function deliverWorkspace(
  workspaces: RunWorkspaces | null,
  finished: Extract<RunEvent, { type: 'run.finished' }> | null,
  writer: RunLogWriter | null,
): Promise<string | null> {
  if (!workspaces) return null;
  try {
    const winner = finished?.winnerId ?? null;
    if (winner === null) return null;
    const answerFile = writer?.finalAnswerPath() ?? null;
    return answerFile
      ? await workspaces.deliver(winner, path.join(path.dirname(answerFile), 'workspace'))
      : workspaces.workspaceOf(winner);
  } finally {
    await workspaces.dispose();
  }
}

function toResult(
  finished: Extract<RunEvent, { type: 'run.finished' }> | null,
  question: string,
  logDir: string | null,
  answerFile: string | null,
): RunResult {
  if (!finished) {
    return {
      runId: 'unknown',
      question,
      status: 'cancelled',
      exitCode: 130,
      winnerId: null,
      finalAnswer: null,
      durationMs: 0,
      usage: {},
      logDir,
      answerFile: null,
      workspaceDir: null,
      error: { code: 'cancelled', message: 'the run was stopped before it finished' },
    };
  }
  return {
    runId: finished.runId,
    question,
    status: finished.status,
    exitCode: finished.exitCode,
    winnerId: finished.winnerId,
    finalAnswer: finished.finalAnswer,
    durationMs: finished.durationMs,
    usage: finished.usage,
    logDir,
    answerFile: finished.finalAnswer === null ? null : answerFile,
    workspaceDir: null,
    ...(finished.error ? { error: finished.error } : {}),
  };
}

/**
 * Runs massgen on one question and resolves with the result (never rejects for run failures: look
 * at `status` and `exitCode`; rejects with a `ConfigError` for bad input).
 *
 * @example
 * ```ts
 * import { runMassGen } from 'massgen';
 * const result = await runMassGen({ config: 'team.yaml', question: 'What is 2+2?' });
 * console.log(result.winnerId, result.finalAnswer);
 * ```
 */
export async function runMassGen(options: MassGenOptions): Promise<RunResult> {
  const run = await prepareRun(options);
  for await (const _event of run.stream()) {
    // Events reach options.onEvent and the log writer inside the stream.
  }
  return run.result;
}
