import { fitLine, formatArguments, seconds, wrapText } from './format.js';
import { indent, line, lines, type StyledLine } from './styled-line.js';
import type { AgentView, TranscriptEntry } from './view-state.js';

function entryLines(entry: TranscriptEntry, width: number, first: boolean): StyledLine[] {
  const w = Math.max(10, width);
  switch (entry.kind) {
    case 'turn':
      return [
        ...(first ? [] : [line('')]),
        line(
          fitLine(
            `── turn ${entry.turn}` +
              (entry.visibleAnswers.length > 0
                ? ` · sees ${entry.visibleAnswers.join(', ')}`
                : ' · no answers yet') +
              ' ──',
            w,
          ),
          { color: 'cyan', bold: true },
        ),
      ];
    case 'text':
      if (entry.text.trim() === '') return [];
      return entry.textKind === 'reasoning'
        ? lines(wrapText(entry.text.trim(), w), { dim: true, italic: true })
        : lines(wrapText(entry.text.trim(), w));
    case 'tool': {
      const head = line(
        fitLine(
          `⚙ ${entry.toolName}${entry.providerExecuted ? ' [provider]' : ''} ${formatArguments(entry.args, w)}`,
          w,
        ),
        { color: 'yellow' },
      );
      const approval = entry.approval;
      if (approval?.state === 'denied') {
        const why = approval.reason ? `: ${approval.reason}` : '';
        return [head, ...lines(indent(wrapText(`✖ denied${why}`, w - 2).slice(0, 3)), { color: 'red' })];
      }
      const approved = approval?.state === 'approved' ? [line('  ✔ approved', { dim: true })] : [];
      if (entry.deferred) {
        return [
          head,
          line(fitLine('  ⏸ planned — recorded for the plan, not run (planning mode)', w), { color: 'blue' }),
        ];
      }
      if (approval?.state === 'pending') {
        return [head, line('  ? waiting for approval', { color: 'yellow', bold: true })];
      }
      if (entry.result === null) return [head, ...approved, line('  … running', { dim: true })];
      const status = entry.isError ? '✗ error' : '✓';
      const result = wrapText(`${status} ${seconds(entry.durationMs ?? 0)}: ${entry.result}`, w - 2).slice(
        0,
        3,
      );
      return [head, ...approved, ...lines(indent(result), entry.isError ? { color: 'red' } : { dim: true })];
    }
    case 'mcp-ready':
      return [
        line(
          fitLine(
            `MCP "${entry.server}" ready in ${seconds(entry.durationMs)}: ` +
              (entry.tools.length > 0 ? entry.tools.join(', ') : 'no tools'),
            w,
          ),
          { dim: true },
        ),
      ];
    case 'mcp-failed':
      return lines(
        wrapText(
          `✖ MCP "${entry.server}" failed: ${entry.message} (` +
            (entry.retryInSeconds === null ? 'off for this run' : `retry in ${entry.retryInSeconds}s`) +
            ')',
          w,
        ),
        { color: 'red' },
      );
    case 'retry':
      return lines(
        wrapText(
          `… retry ${entry.attempt} in ${seconds(entry.delayMs)} (partial output discarded): ${entry.message}`,
          w,
        ),
        { color: 'yellow' },
      );
    case 'rejected':
      return lines(
        wrapText(
          `⚠ ${entry.toolName ?? 'no workflow call'} refused (${entry.retriesLeft} retries left): ${entry.reason}`,
          w,
        ),
        { color: 'yellow' },
      );
    case 'answer':
      return [
        line(fitLine(`✔ new answer ${entry.label}`, w), { color: 'green', bold: true }),
        ...lines(indent(wrapText(entry.content.trim(), w - 2)), { color: 'green' }),
      ];
    case 'vote':
      return entry.counted
        ? lines(wrapText(`✔ vote → ${entry.targetLabel} (${entry.targetAgentId}): ${entry.reason}`, w), {
            color: 'magenta',
          })
        : lines(
            wrapText(
              `↻ vote → ${entry.targetLabel} (${entry.targetAgentId}) not counted — the answers changed or a message arrived: ${entry.reason}`,
              w,
            ),
            { dim: true },
          );
    case 'votes-reset':
      return [
        line(
          fitLine(
            entry.causedBy === 'user'
              ? '↻ vote cleared: a message from the user'
              : `↻ vote cleared: ${entry.causedBy} is new`,
            w,
          ),
          { dim: true },
        ),
      ];
    case 'human':
      return [
        line(fitLine(`✉ message from the user${entry.toAll ? ' (to all agents)' : ''}`, w), {
          color: 'cyan',
          bold: true,
        }),
        ...lines(indent(wrapText(entry.text.trim(), w - 2)), { color: 'cyan' }),
      ];
    case 'update':
      return [
        line(fitLine(`↻ update received: ${entry.labels.join(', ') || '(none)'}`, w), { color: 'blue' }),
      ];
    case 'restart':
      return [line(fitLine(`↻ restarted: ${entry.reason}`, w), { color: 'yellow' })];
    case 'turn-ended':
      return entry.outcome === 'failed'
        ? lines(wrapText(`✖ turn ${entry.turn} failed: ${entry.error?.message ?? 'unknown error'}`, w), {
            color: 'red',
          })
        : [line(`turn ${entry.turn} aborted`, { dim: true })];
    case 'dropped':
      return lines(wrapText(`✖ dropped: ${entry.reason}`, w), { color: 'red', bold: true });
    case 'presentation':
      return [
        line(''),
        line(fitLine(`── presenting the final answer (${entry.mode}) ──`, w), { color: 'cyan', bold: true }),
      ];
    case 'final':
      return [
        line(
          fitLine(
            `★ final answer ${entry.label}` +
              (entry.fallback ? ` — stored answer used${entry.error ? `: ${entry.error.message}` : ''}` : ''),
            w,
          ),
          { color: 'green', bold: true },
        ),
      ];
  }
}

/** Everything one agent did, in order: turns, text, tool calls, answers, votes, updates. */
export function transcriptLines(view: AgentView | undefined, width: number): StyledLine[] {
  if (!view || view.transcript.length === 0) return [line('Nothing yet.', { dim: true })];
  return view.transcript.flatMap((entry, i) => entryLines(entry, width, i === 0));
}
