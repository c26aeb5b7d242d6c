import path from 'node:path';
import { maskSecrets } from '../config/index.js';
import { Orchestrator, type RunStream } from '../coordination/index.js';
import { createRunLogWriter, type RunLogWriter } from '../logging/index.js';
import type { CapabilityParts } from '../capability/index.js';
import type { RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { loadConfigBackends } from '../backends/registry.js';
import { assembleRun, runBase, type AssembledRun, type RunBase } from './assemble-run.js';
import { coordinationSettings } from './coordination-settings.js';
import type { MassGenOptions, PreparedRun } from './massgen-options.js';
import { withAllConfigProblems } from './all-config-problems.js';
import { askOthersSetup } from './ask-others-setup.js';
import { ReviewDesk } from './review-desk.js';
import { loadRunAttachments } from './run-attachments.js';
import { streamRun } from './run-stream.js';
import { collectRunSecrets, runScrubber } from './secrets.js';
import { ToolApprovalDesk } from './tool-approval-desk.js';
import { hasPermissionRules, holdsToolCalls } from './holds-tool-calls.js';
import { runtimeVersions } from './versions.js';

export type { MassGenOptions, PreparedRun } from './massgen-options.js';

/**
 * Validates the config and builds everything a run needs, without starting it.
 * Throws a `ConfigError` (exit code 1) for any problem with the input.
 */
export async function prepareRun(options: MassGenOptions): Promise<PreparedRun> {
  let base: RunBase;
  try {
    base = runBase(options);
  } catch (error) {
    throw typeof options.config === 'string'
      ? await withAllConfigProblems(error, options.config, {
          cwd: path.resolve(options.cwd ?? process.cwd()),
          ...(options.env ? { env: options.env } : {}),
        })
      : error;
  }
  const { config, env, cwd } = base;
  // Only the backends this config's agents use are imported (everything after reads their factories).
  await loadConfigBackends(config);
  // Attachments are read (and downloaded) before any model is: a bad file fails the run at once.
  const attached = await loadRunAttachments(config, options.attachments ?? [], {
    question: options.question,
    baseDir: base.baseDir,
    cwd,
    notes: base.notes,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.allowPrivateUrls ? { allowPrivateUrls: true } : {}),
  });
  const reviews = new ReviewDesk(options.review ?? 'apply');
  const scrubber = runScrubber(config, env);
  // ask_others (docs/ask-others.md): a peer answers with its own model, once the agents are built.
  let assembled: AssembledRun | null = null;
  const askOthers = await askOthersSetup(config, () => assembled?.agents ?? []);
  const run = await assembleRun(
    base,
    askOthers
      ? { ...options, capabilities: [...(options.capabilities ?? []), askOthers.capability] }
      : options,
    { attached, reviewer: reviews.reviewer, scrubber },
  );
  assembled = run;
  const desk = new ToolApprovalDesk();
  // Rules a capability asks first (`memory.save: ask` with someone to ask) make one more `ask`.
  const rules = run.parts.flatMap((part) => (part.rules ? [part.rules] : []));
  const approver =
    options.onToolApproval ?? (holdsToolCalls(config) || rules.length > 0 ? desk.approver : undefined);
  // Permission rules, and the audit ledger of every decision, whenever something decides on calls;
  // the engine's modules load only then.
  const held = options.onToolApproval !== undefined || !config.orchestrator.auto_approve;
  const toolPolicy =
    held || rules.length > 0 || hasPermissionRules(config)
      ? (await import('./tool-permissions.js')).buildToolPolicy(config, {
          held,
          workspaces: run.workspaces,
          contextPaths: base.contextPaths,
          first: rules,
        })
      : undefined;
  const orchestrator = new Orchestrator({
    agents: run.agents,
    settings: coordinationSettings(config, {
      ...(options.orchestratorTimeoutSeconds === undefined
        ? {}
        : { orchestratorTimeoutSeconds: options.orchestratorTimeoutSeconds }),
      ...(base.evalCriteria === undefined ? {} : { evalCriteria: base.evalCriteria }),
    }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(approver ? { approveToolCall: approver } : {}),
    ...(toolPolicy ? { toolPolicy } : {}),
    ...onePart(run.parts, 'toolHooks'),
    ...onePart(run.parts, 'stopHook'),
    ...(run.workspaces ? { workspaces: run.workspaces } : {}),
    ...(run.warnings.length > 0 ? { warnings: run.warnings } : {}),
    scrubber,
  });
  const writer =
    (options.logging ?? config.ui.logging_enabled) ? await openLogWriter(options, base, run) : null;
  for (const part of run.parts) part.logFolder?.(writer?.logDir ?? null);

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
    yield* streamRun({
      orchestrator,
      options,
      attached,
      run,
      writer,
      started: (events) => (live = events),
      ended: resolveResult,
    });
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
    steer: (message) => (live as RunStream | null)?.steer(message) ?? notStarted,
    answerNow: (source) => (live as RunStream | null)?.answerNow(source) ?? notStarted,
    answerQuestion: (questionId, text, source) =>
      askOthers?.desk.answer(questionId, text, source) ?? {
        accepted: false,
        reason: 'unknown_question',
        message: 'this run does not ask the human (coordination.broadcast: human)',
      },
    pendingQuestions: () => askOthers?.desk.pendingQuestions() ?? [],
  };
}

/** The capability part of a kind the orchestrator takes once (assembleRun checks there is one at most). */
function onePart<K extends 'toolHooks' | 'stopHook'>(
  parts: readonly CapabilityParts[],
  key: K,
): Partial<Pick<CapabilityParts, K>> {
  const part = parts.find((p) => p[key] !== undefined);
  return part ? ({ [key]: part[key] } as Partial<Pick<CapabilityParts, K>>) : {};
}

/** The run's log folder, with `status.json` written (phase "starting") before its path is handed out. */
async function openLogWriter(
  options: MassGenOptions,
  base: RunBase,
  run: AssembledRun,
): Promise<RunLogWriter> {
  try {
    const writer = await createRunLogWriter({
      rootDir: options.logRoot ?? path.join(base.cwd, '.massgen', 'massgen_logs'),
      ...(options.clock ? { clock: options.clock } : {}),
      metadata: {
        config: maskSecrets(base.config, collectRunSecrets(base.config, base.env)),
        versions: runtimeVersions(),
        extra: { cwd: base.cwd },
      },
    });
    // status.json exists before its path is handed out, e.g. printed by --automation.
    await writer.flush();
    if (run.workspaces) run.workspaces.diffDir = writer.logDir;
    return writer;
  } catch (error) {
    await run.close();
    await run.workspaces?.dispose().catch(() => undefined);
    throw error;
  }
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
