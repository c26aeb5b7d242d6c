import { describeChange, pickNote } from '../types/change-kind.js';
import type { RunEvent, RunEventOf } from '../types/events.js';
import { cutOffReason, cutOffText, initialFinalFinish, reduceFinalFinish } from '../types/final-finish.js';
import { computerActionArgs } from '../util/computer-action-args.js';
import { formatCostOf, formatUsd, oneLine, truncate } from '../util/text.js';
import { mediaLabel } from '../media/media-label.js';

export { formatUsd };

export type Write = (text: string) => void;

/** One line for a finished tool call: its result, its error, or that planning mode only recorded it. */
function toolResultLine(event: RunEventOf<'tool.call.finished'>): string {
  if (event.deferred) return `⏸ ${event.toolName} recorded for the plan (planning mode: not run yet)`;
  const result = truncate(oneLine(event.result), 120);
  // The files the call showed the model, by name, kind and size (their bytes stay out of every view).
  const media = event.media?.length ? ` [${event.media.map((m) => mediaLabel(m)).join(', ')}]` : '';
  return event.isError ? `✖ ${event.toolName}: ${result}${media}` : `↳ ${event.toolName}: ${result}${media}`;
}

/** Which tools run while the agents plan and which wait for the final presenter. */
function planningLine(event: RunEventOf<'planning.tools.classified'>): string {
  const names = (allowed: boolean) => [
    ...new Set(event.decisions.filter((d) => d.allowed === allowed).map((d) => d.toolName)),
  ];
  const run = names(true);
  const deferred = names(false);
  const by = event.analysisAgentId ? ` (unhinted tools classified by ${event.analysisAgentId})` : '';
  const failed = event.error
    ? ` — classification failed, unhinted tools deferred: ${event.error.message}`
    : '';
  return `Planning mode: run now: ${run.join(', ') || 'none'}; deferred to the final presenter: ${deferred.join(', ') || 'none'}${by}${failed}`;
}

/** Options of {@link createPlainDisplay}. */
export interface PlainDisplayOptions {
  showReasoning?: boolean;
  /**
   * A trace to show beside the final answer rather than a transcript ending in it (the server's
   * `reasoning_content`, the AI SDK provider's reasoning): the presenter's output is shown line by line
   * like any agent's, and the final answer itself is left out.
   */
  trace?: boolean;
  /** Called after each line printed for an agent (a heartbeat stays quiet while an agent prints). */
  onAgentLine?: (agentId: string) => void;
}

/**
 * The `--no-display` view: plain streaming text, each agent's lines prefixed by its id, then the
 * final answer. A view only: it formats events and keeps no coordination logic.
 *
 * It writes model and tool text as given and adds no styling of its own: a caller that writes to a
 * terminal passes `inertWriter(write)` (util/terminal-text), so escape sequences are shown, never run;
 * the chat trace keeps the text as data.
 */
export function createPlainDisplay(rawWrite: Write, options: PlainDisplayOptions = {}) {
  const partial = new Map<string, string>();
  /** Agents whose model has a known price (from run.started). */
  const priced = new Set<string>();
  let presentingStreamed = false;
  /** Between presentation.started and presentation.finished. */
  let presenting = false;
  /** The streamed final answer stopped mid-line: anything else printed must start on a new line. */
  let midLine = false;
  /** Whether the final answer ended on its own or was cut off (derived from the step events). */
  let finalFinish = initialFinalFinish();
  const write: Write = (text) => {
    if (midLine) rawWrite('\n');
    midLine = false;
    rawWrite(text);
  };

  const line = (agentId: string, text: string) => {
    write(`[${agentId}] ${text}\n`);
    options.onAgentLine?.(agentId);
  };
  const flushPartial = (agentId: string) => {
    const rest = partial.get(agentId);
    if (rest) line(agentId, rest);
    partial.delete(agentId);
  };

  return (event: RunEvent): void => {
    finalFinish = reduceFinalFinish(finalFinish, event);
    switch (event.type) {
      case 'run.started':
        for (const a of event.agents) if (a.price) priced.add(a.agentId);
        write(`Question: ${oneLine(event.question)}\n`);
        if (event.attachments?.length)
          write(`Attached: ${event.attachments.map((m) => mediaLabel(m)).join(', ')}\n`);
        write(
          `Agents: ${event.agents.map((a) => `${a.agentId} (${a.backendType}/${a.model})`).join(', ')}\n\n`,
        );
        return;
      case 'agent.text.delta': {
        if (event.kind === 'reasoning' && !options.showReasoning) return;
        if (event.phase === 'presentation' && !options.trace) {
          presentingStreamed = true;
          rawWrite(event.text);
          if (event.text !== '') midLine = !event.text.endsWith('\n');
          return;
        }
        const lines = ((partial.get(event.agentId) ?? '') + event.text).split('\n');
        partial.set(event.agentId, lines.pop() ?? '');
        for (const text of lines) line(event.agentId, text);
        return;
      }
      case 'agent.text.end':
        if (event.phase === 'coordination' || options.trace) flushPartial(event.agentId);
        return;
      case 'agent.step.retrying':
        flushPartial(event.agentId);
        line(
          event.agentId,
          `… retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt}): ${event.error.message}`,
        );
        return;
      case 'tool.call.started':
        // A vote being written is not a tool call to show: its vote.cast line follows.
        if (event.toolName === 'vote' && !event.providerExecuted) return;
        flushPartial(event.agentId);
        line(
          event.agentId,
          // A vendor computer action reads as its target (`computer left_click (120, 48)`), not as JSON.
          `⚙ ${event.toolName} ${truncate(oneLine(computerActionArgs(event.toolName, event.arguments) ?? JSON.stringify(event.arguments) ?? ''), 100)}`,
        );
        return;
      case 'tool.call.finished':
        if (event.toolName === 'vote' && !event.providerExecuted && !event.deferred) return;
        line(event.agentId, toolResultLine(event));
        return;
      case 'tool.approval.requested':
        line(
          event.agentId,
          `? ${event.toolName} is waiting for approval${event.rule ? ` (${event.rule.label}: ${event.rule.text})` : ''}`,
        );
        return;
      case 'changes.proposed':
      case 'changes.applied':
        write(`${changesLine(event)}\n`);
        return;
      case 'tool.approval.resolved':
        line(
          event.agentId,
          event.approved
            ? `✔ ${event.toolName} approved`
            : `✖ ${event.toolName} denied${event.reason ? `: ${oneLine(event.reason)}` : ''}`,
        );
        return;
      case 'mcp.server.ready':
        line(
          event.agentId,
          `MCP server "${event.server}" ready: ${event.tools.length} tool${event.tools.length === 1 ? '' : 's'}`,
        );
        return;
      case 'mcp.server.failed':
        line(
          event.agentId,
          `✖ MCP server "${event.server}": ${oneLine(event.message)} (${event.retryInSeconds === null ? 'off for this run' : `retry in ${event.retryInSeconds}s`})`,
        );
        return;
      case 'planning.tools.classified':
        write(`${planningLine(event)}\n`);
        return;
      case 'workflow.rejected':
        line(
          event.agentId,
          `⚠ ${event.toolName ?? 'no workflow call'} refused (${event.retriesLeft} retries left): ${truncate(oneLine(event.reason), 160)}`,
        );
        return;
      case 'answer.submitted':
        // A single agent's answer is the final answer being streamed right now: do not repeat it.
        if (presenting) return;
        flushPartial(event.agentId);
        line(event.agentId, `✔ new answer ${event.label}: ${truncate(oneLine(event.content), 120)}`);
        return;
      case 'vote.cast':
        line(
          event.agentId,
          event.counted
            ? `✔ vote → ${event.subtaskId ? `${event.subtaskId} ` : ''}${event.targetLabel} (${event.targetAgentId}): ${truncate(oneLine(event.reason), 120)}`
            : `↻ vote for ${event.targetLabel} not counted: the answers changed`,
        );
        return;
      case 'checklist.criteria':
        write(`Checklist: ${event.criteria.map((c) => `${c.id} [${c.tier}] ${c.text}`).join('; ')}\n`);
        return;
      case 'checklist.verdict':
        line(
          event.agentId,
          `☑ checklist round ${event.round}: ${event.verdict} — best ${event.bestLabel} (${(event.aggregates[event.bestAgentId] ?? 0).toFixed(1)}/10)${event.failing.length > 0 ? `, fails ${event.failing.join(', ')}` : ''}`,
        );
        return;
      case 'decomposition.planned':
        write(
          `Subtasks: ${event.subtasks.map((t) => `${t.id} ${t.title} (${t.ownerId})`).join('; ')} — presenter ${event.presenterId}\n`,
        );
        return;
      case 'votes.reset':
        write(
          event.causedBy === 'user'
            ? `── a message from the user: votes of ${event.clearedVoters.join(', ')} reset ──\n`
            : `── ${event.causedBy} is new: votes of ${event.clearedVoters.join(', ')} reset ──\n`,
        );
        return;
      case 'human.message':
        write(
          `── message from the user (${event.source}) to ${event.target ?? 'every agent'}: ${truncate(oneLine(event.text), 200)} ──\n`,
        );
        return;
      case 'human.message.delivered':
        line(event.agentId, `✉ read the message from the user`);
        return;
      case 'coordination.answer_now':
        write(
          `── answer now (${event.source}): coordination stops, the best answer so far is presented ──\n`,
        );
        return;
      case 'agent.update.injected':
        line(event.agentId, `↻ update received: ${event.labels.join(', ')}`);
        return;
      case 'agent.turn.restarted':
        partial.delete(event.agentId);
        line(event.agentId, `↻ restarted: ${event.reason}`);
        return;
      case 'agent.turn.finished':
        if (event.outcome === 'failed')
          line(event.agentId, `✖ turn failed: ${event.error?.message ?? 'unknown error'}`);
        return;
      case 'agent.dropped':
        line(event.agentId, `✖ dropped: ${event.reason}`);
        return;
      case 'agent.context.trimmed':
        line(
          event.agentId,
          `✂ request trimmed to fit its ${event.contextWindow}-token context (~${event.beforeTokens} → ~${event.afterTokens} tokens)`,
        );
        return;
      case 'coordination.wrap_up':
        write(`⏱ About ${Math.round(event.remainingMs / 1000)}s left: agents are asked to wrap up.\n`);
        return;
      case 'coordination.final_round':
        write(
          `\nFinal round among the island winners: ${event.finalists.map((f) => `${f.agentId} (${f.label})`).join(', ')}\n`,
        );
        return;
      case 'selection.judged':
        line(
          event.agentId,
          event.winnerId
            ? `⚖ judged: ${event.winnerId} — ${oneLine(event.reason)}`
            : `⚖ no valid pick: ${oneLine(event.reason)}`,
        );
        return;
      case 'orchestration.checked':
        if (!event.accepted)
          line(event.agentId, `↺ sent the final answer back: ${oneLine(event.reason ?? '')}`);
        return;
      case 'orchestration.restarted':
        write(`\n— Attempt ${event.attempt} — instructions: ${oneLine(event.instructions)}\n\n`);
        return;
      case 'coordination.finished': {
        const tallies = Object.entries(event.tallies)
          .map(([id, n]) => `${id} ${n}`)
          .join(', ');
        const why = event.reason === 'timeout' ? ' (orchestrator timeout)' : '';
        if (event.winnerId && event.reason !== 'single_agent')
          write(`\nWinner: ${event.winnerId}${why}${tallies ? ` — votes: ${tallies}` : ''}\n`);
        return;
      }
      case 'presentation.started':
        presentingStreamed = false;
        presenting = true;
        write(
          options.trace
            ? `\n── ${event.agentId} presents the final answer ──\n`
            : `\n=== Final answer (${event.agentId}) ===\n`,
        );
        return;
      case 'presentation.finished': {
        presenting = false;
        const cutOff = cutOffReason(finalFinish);
        if (options.trace) {
          flushPartial(event.agentId);
          if (event.fallback)
            line(
              event.agentId,
              `presentation failed, its stored answer is final: ${event.error?.message ?? ''}`,
            );
          if (cutOff) line(event.agentId, `⚠ ${cutOffText(cutOff)}`);
          return;
        }
        if (!presentingStreamed || event.fallback) {
          if (event.fallback && presentingStreamed)
            write('\n(presentation failed — the stored answer follows)\n');
          write(event.content);
        }
        midLine = false;
        rawWrite('\n');
        if (cutOff) write(`⚠ ${cutOffText(cutOff)}\n`);
        return;
      }
      case 'run.finished':
        write(`\n${summaryLine(event)}\n${usageLines(event, priced).join('\n')}\n`);
        return;
      default:
        return;
    }
  };
}

type Finished = Extract<RunEvent, { type: 'run.finished' }>;

/** Tokens and cost per agent, then the total. `priced` names the agents whose model has a known price. */
export function usageLines(event: Finished, priced: ReadonlySet<string>): string[] {
  const cost = (ids: string[]) =>
    formatCostOf(ids.map((id) => ({ usd: event.costUsd[id] ?? 0, priced: priced.has(id) })));
  const ids = Object.keys(event.usage);
  const lines = ids.map((id) => {
    const u = event.usage[id];
    const reasoning = u && u.reasoningTokens > 0 ? `, ${u.reasoningTokens} reasoning` : '';
    const cached = u && u.cachedInputTokens > 0 ? `, ${u.cachedInputTokens} cached` : '';
    return `  ${id}: ${u?.inputTokens ?? 0} in / ${u?.outputTokens ?? 0} out tokens${reasoning}${cached} — ${cost([id])}`;
  });
  const total = Object.values(event.usage).reduce(
    (sum, u) => ({ input: sum.input + u.inputTokens, output: sum.output + u.outputTokens }),
    { input: 0, output: 0 },
  );
  lines.push(`  total: ${total.input} in / ${total.output} out tokens — ${cost(ids)}`);
  return lines;
}

/** One line describing how the run ended. */
export function summaryLine(event: Finished): string {
  const seconds = (event.durationMs / 1000).toFixed(1);
  switch (event.status) {
    case 'completed':
      return `✔ Completed in ${seconds}s — winner ${event.winnerId}`;
    case 'timeout':
      return `✖ Timed out after ${seconds}s with no answer`;
    case 'cancelled':
      return `✖ Cancelled after ${seconds}s`;
    case 'failed':
      return `✖ Failed after ${seconds}s: ${event.error?.message ?? 'unknown error'}`;
  }
}

const PLAIN = new Set(['added', 'deleted', 'modified']);

/**
 * One line about the winner's changes to an isolated context path (`write_mode: worktree`), with a line
 * more for each change that is not a plain file edit, and what was kept when they did not all come back.
 */
export function changesLine(event: RunEventOf<'changes.proposed'> | RunEventOf<'changes.applied'>): string {
  if (event.type === 'changes.proposed') {
    const added = event.files.reduce((n, f) => n + f.additions, 0);
    const removed = event.files.reduce((n, f) => n + f.deletions, 0);
    const count = `${event.files.length} file${event.files.length === 1 ? '' : 's'}`;
    // Anything beyond a plain file edit is named (links with their targets, renames, mode and type changes).
    const notable = event.files
      .filter((f) => f.pickOnly !== undefined || !PLAIN.has(describeChange(f)))
      .map((f) => `\n   ${f.path}: ${describeChange(f)}${f.pickOnly ? ` — ${pickNote(f)}` : ''}`);
    return `── changes to ${event.contextPath} from ${event.agentId}: ${count} (+${added} −${removed})${event.awaitingReview ? ', waiting for review' : ''}${event.diffFile ? ` · diff: ${event.diffFile}` : ''} ──${notable.join('')}`;
  }
  const parts = [
    event.applied.length > 0 ? `applied ${event.applied.join(', ')}` : 'nothing applied',
    ...(event.conflicts.length > 0
      ? [`conflicts in ${event.conflicts.join(', ')} (resolve the <<<<<<< markers)`]
      : []),
    ...event.failed.map((f) => `${f.path} not applied: ${f.message}`),
    ...(event.skipped.length > 0 ? [`left out ${event.skipped.join(', ')}`] : []),
    ...(event.kept ? [`kept ${event.kept.path} (branch ${event.kept.branch}) to apply by hand`] : []),
  ];
  return `── ${event.contextPath}: ${parts.join('; ')} (chosen by: ${event.by}) ──`;
}
