import type { RunEvent } from '../types/events.js';
import { cutOffReason, initialFinalFinish, reduceFinalFinish } from '../types/final-finish.js';
import type { RunResult } from '../types/run-result.js';
import { oneLine, truncate } from '../util/text.js';
import type { Write } from '../app/plain-display.js';
import { inertText, inertWriter } from '../util/terminal-text.js';
import { formatBytes } from '../media/media-limits.js';
import type { MediaRef } from '../types/media.js';

/** A media file on one line for scripts: name, kind, type, size, and where it is when known. */
const mediaLine = (m: MediaRef) =>
  `${m.name} (${m.kind}, ${m.mediaType}, ${formatBytes(m.bytes)}, sha256 ${m.sha256.slice(0, 12)})${m.path ? ` ${m.path}` : ''}`;

/**
 * The `--automation` view: quiet, one `KEY: value` per line, for scripts and coding agents.
 * `LOG_DIR` and `STATUS` are always printed first so a caller can watch `status.json` live.
 * It adds no styling: every line is made inert (model text shows its escape sequences, never runs them).
 */
export function printAutomationHeader(
  rawWrite: Write,
  info: { logDir: string | null; statusPath: string | null; question: string },
): void {
  const write = inertWriter(rawWrite);
  write(`LOG_DIR: ${info.logDir ?? '-'}\n`);
  write(`STATUS: ${info.statusPath ?? '-'}\n`);
  write(`QUESTION: ${oneLine(info.question)}\n`);
}

export function createAutomationDisplay(rawWrite: Write) {
  const write = inertWriter(rawWrite);
  let finalFinish = initialFinalFinish();
  return (event: RunEvent): void => {
    finalFinish = reduceFinalFinish(finalFinish, event);
    // The final answer stopped at the model's output limit: the text is incomplete.
    if (event.type === 'presentation.finished' && cutOffReason(finalFinish))
      write(`ANSWER_TRUNCATED: ${cutOffReason(finalFinish)}\n`);
    if (event.type === 'agent.dropped') write(`AGENT_DROPPED: ${event.agentId}: ${oneLine(event.reason)}\n`);
    else if (event.type === 'run.started')
      for (const m of event.attachments ?? []) write(`ATTACHMENT: ${oneLine(mediaLine(m))}\n`);
    else if (event.type === 'tool.call.finished')
      for (const m of event.media ?? [])
        write(`MEDIA: ${event.agentId} ${event.toolName}: ${oneLine(mediaLine(m))}\n`);
    else if (event.type === 'presentation.finished' && event.fallback)
      write(
        `PRESENTATION_FALLBACK: ${event.agentId}: ${oneLine(event.error?.message ?? 'the presentation was empty')} — its stored answer is the final answer\n`,
      );
  };
}

/**
 * The lines after a run: its outcome, and `LOGS_INCOMPLETE` when the log folder could not be written in
 * full (`ANSWER_FILE` is then `-` unless the answer itself was written).
 */
export function printAutomationFooter(rawWrite: Write, result: RunResult, agentCount: number): void {
  const write = inertWriter(rawWrite);
  const seconds = (result.durationMs / 1000).toFixed(1);
  if (result.logWriteError)
    write(`LOGS_INCOMPLETE: ${result.logWriteError.code}: ${oneLine(result.logWriteError.message)}\n`);
  if (result.status === 'completed') {
    write(`WINNER: ${result.winnerId}\n`);
    write(`ANSWER_FILE: ${result.answerFile ?? '-'}\n`);
    write(`DURATION: ${seconds}\n`);
    // Inert before it is cut: the preview holds 200 columns of what the terminal shows.
    write(`ANSWER_PREVIEW: ${truncate(oneLine(inertText(result.finalAnswer ?? '')), 200)}\n`);
    write(`COMPLETED: ${agentCount} agents, ${seconds}s total\n`);
  } else {
    write(`STATUS_RESULT: ${result.status}\n`);
    write(`DURATION: ${seconds}\n`);
    write(`ERROR: ${oneLine(result.error?.message ?? result.status)}\n`);
  }
}
