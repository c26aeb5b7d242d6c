import path from 'node:path';
import type { CapabilityParts, RunEnd } from '../capability/index.js';
import type { Orchestrator, RunStream } from '../coordination/index.js';
import type { RunLogWriter } from '../logging/index.js';
import type { RunAttachments } from './run-attachments.js';
import { CancelledError, describeError } from '../types/errors.js';
import type { RunEvent, RunEventOf } from '../types/events.js';
import { notRunResult, type RunResult } from '../types/run-result.js';
import { linkedAbortController } from '../util/abort.js';
import type { RunWorkspaces } from '../workspace/index.js';
import type { AssembledRun } from './assemble-run.js';
import type { MassGenOptions } from './massgen-options.js';
import { isolationResult } from './review-desk.js';

type Finished = RunEventOf<'run.finished'>;

/** What {@link streamRun} runs and reports to. */
export interface StreamInputs {
  orchestrator: Orchestrator;
  options: MassGenOptions;
  attached: RunAttachments;
  run: AssembledRun;
  writer: RunLogWriter | null;
  /** Handed the live stream once the run starts (for steering). */
  started(live: RunStream): void;
  /** Called once with the result, after the logs are flushed. */
  ended(result: RunResult): void;
}

/**
 * Runs the protocol once, yielding its events; each also goes to the log writer, the capabilities
 * and `onEvent`, in that order. When the consumer leaves early the run is cancelled but still logged
 * to its end; then the run ends (see {@link endRun}) and the result is reported.
 */
export async function* streamRun(inputs: StreamInputs): AsyncGenerator<RunEvent, void, undefined> {
  const { options, attached, run, writer } = inputs;
  const { controller, dispose } = linkedAbortController(options.signal);
  // What the capabilities add to the question (the hooks' UserPromptSubmit context).
  const question = run.parts.reduce((text, part) => part.question?.(text) ?? text, attached.question);
  const events = inputs.orchestrator.run(question, {
    signal: controller.signal,
    ...(attached.media.length > 0 ? { attachments: attached.media } : {}),
    ...(options.history ? { history: options.history } : {}),
    ...(options.step ? { step: options.step } : {}),
  });
  inputs.started(events);
  let finished: Finished | null = null;
  const record = (event: RunEvent) => {
    writer?.handle(event);
    for (const part of run.parts) part.onEvent?.(event);
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
    inputs.ended(await endRun(options.question, run, writer, finished));
  }
}

/**
 * After the last event: the winner's workspace delivered, each capability's end (in list order), every
 * process stopped, the logs flushed — and the result.
 */
async function endRun(
  question: string,
  run: AssembledRun,
  writer: RunLogWriter | null,
  finished: Finished | null,
): Promise<RunResult> {
  const workspaceDir = await deliverWorkspace(run.workspaces, finished, writer);
  const end: RunEnd = {
    finished,
    workspaceDir,
    workspaceOf: (id) => run.workspaces?.workspaceOf(id) ?? null,
    agents: run.agents,
  };
  const added = await capabilityResults(run.parts, end);
  await run.close();
  await writer?.flush();
  return {
    ...toResult(finished, question, writer),
    ...logWriteResult(writer),
    workspaceDir,
    ...isolationResult(run.workspaces),
    ...added,
  };
}

/** What the capabilities add to the result; one whose end fails adds nothing (the run's result stands). */
async function capabilityResults(
  parts: readonly CapabilityParts[],
  end: RunEnd,
): Promise<Partial<RunResult>> {
  let added: Partial<RunResult> = {};
  for (const part of parts) {
    try {
      added = { ...added, ...(await part.finish?.(end)) };
    } catch {
      // As documented for `finish`: an end that throws adds nothing.
    }
  }
  return added;
}

/**
 * The winner's workspace is the run's deliverable: copied next to its logged answer (or left where it
 * is with logging off). The snapshots and the peers' copies go away with the run.
 */
async function deliverWorkspace(
  workspaces: RunWorkspaces | null,
  finished: Finished | null,
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

/** The first failed log write, named by its system code (`ENOSPC` for a full disk), when logs are incomplete. */
function logWriteResult(writer: RunLogWriter | null): Pick<RunResult, 'logWriteError'> {
  const error = writer?.writeError;
  if (!error) return {};
  const code = (error as NodeJS.ErrnoException).code ?? 'log_write_failed';
  return { logWriteError: { code, message: describeError(error) } };
}

function toResult(finished: Finished | null, question: string, writer: RunLogWriter | null): RunResult {
  const logDir = writer?.logDir ?? null;
  if (!finished) {
    return { ...notRunResult(question, 'unknown', 'the run was stopped before it finished'), logDir };
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
    answerFile: finished.finalAnswer === null ? null : (writer?.writtenFinalAnswerPath() ?? null),
    workspaceDir: null,
    ...(finished.error ? { error: finished.error } : {}),
  };
}
