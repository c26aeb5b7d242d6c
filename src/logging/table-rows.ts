import type { RunEvent } from '../types/events.js';
import { oneLine, truncate } from '../util/text.js';

/** Reasons and error messages are cut here: the full text is in coordination_events.json. */
const MAX_DETAIL = 160;

/**
 * One table row: a cell in one agent's column, or (agentId null) a run-wide line across all of them.
 * The text of `run.finished` names the time since the run started, known for certain only at the end.
 */
export interface TableRow {
  ts: number;
  agentId: string | null;
  text: string | ((startTs: number) => string);
}

/** Seconds with one decimal, as the time column shows them. */
export const seconds = (ms: number): string => (ms / 1000).toFixed(1);

const detail = (text: string): string => truncate(oneLine(text), MAX_DETAIL);

/** The row an event contributes, or null for events too fine-grained to show (text, steps, most tool calls). */
export function describeEvent(event: RunEvent): Omit<TableRow, 'ts'> | null {
  const agent = (text: string): Omit<TableRow, 'ts'> => ({
    agentId: 'agentId' in event ? event.agentId : null,
    text,
  });
  const run = (text: TableRow['text']): Omit<TableRow, 'ts'> => ({ agentId: null, text });
  switch (event.type) {
    case 'run.started':
      return run(`RUN STARTED with ${event.agents.length} agent(s)`);
    case 'agent.turn.started':
      return agent(
        `turn ${event.turn} started` +
          (event.visibleAnswers.length > 0 ? `; sees ${event.visibleAnswers.join(', ')}` : ''),
      );
    case 'agent.step.retrying':
      return agent(`retry ${event.attempt} in ${seconds(event.delayMs)}s: ${detail(event.error.message)}`);
    case 'workflow.rejected':
      return agent(
        `${event.toolName ?? 'missing workflow call'} rejected (${event.retriesLeft} retries left): ${detail(event.reason)}`,
      );
    case 'answer.submitted':
      return agent(`ANSWER ${event.label}`);
    // Of the tool events only what changes the course of a run: the full record is in the events file.
    case 'tool.call.finished':
      return event.deferred ? agent(`planned ${event.toolName} (not run while planning)`) : null;
    case 'tool.approval.resolved':
      return event.approved
        ? null
        : agent(`${event.toolName} DENIED${event.reason ? `: ${detail(event.reason)}` : ''}`);
    case 'mcp.server.failed':
      return agent(`MCP "${event.server}" FAILED: ${detail(event.message)}`);
    case 'planning.tools.classified': {
      const deferred = new Set(event.decisions.filter((d) => !d.allowed).map((d) => d.toolName));
      return run(
        `PLANNING MODE: ${deferred.size} tool(s) deferred to the final presenter` +
          (deferred.size > 0 ? ` (${detail([...deferred].join(', '))})` : '') +
          (event.error ? `; classification failed: ${detail(event.error.message)}` : ''),
      );
    }
    case 'votes.reset':
      return run(
        `VOTES RESET by ${event.causedBy}` +
          (event.clearedVoters.length > 0 ? `; cleared ${event.clearedVoters.join(', ')}` : ''),
      );
    case 'vote.cast':
      return agent(
        `VOTE ${event.subtaskId ? `${event.subtaskId} ` : ''}${event.targetLabel} (${event.counted ? 'counted' : 'stale, not counted'}): ${detail(event.reason)}`,
      );
    case 'checklist.criteria':
      return run(
        `CHECKLIST: ${event.criteria.length} criteria (${event.source}${event.preset ? ` ${event.preset}` : ''})`,
      );
    case 'checklist.verdict':
      return agent(
        `CHECKLIST round ${event.round}: ${event.verdict.toUpperCase()}, best ${event.bestLabel}` +
          (event.failing.length > 0 ? `, fails ${event.failing.join(', ')}` : ''),
      );
    case 'decomposition.planned':
      return run(
        `DECOMPOSITION: ${event.subtasks.map((s) => `${s.id} ${s.ownerId}`).join(', ')}; presenter ${event.presenterId}`,
      );
    case 'agent.update.injected':
      return agent(`update received: ${event.labels.join(', ')}`);
    case 'human.message':
      return {
        agentId: event.target,
        text: `MESSAGE from the user (${event.source}) to ${event.target ?? 'all agents'}: ${detail(event.text)}`,
      };
    case 'coordination.answer_now':
      return run(`ANSWER NOW requested (${event.source})`);
    case 'agent.turn.restarted':
      return agent(`turn restarted: ${detail(event.reason)}`);
    case 'agent.turn.finished':
      if (event.outcome === 'failed') {
        return agent(
          `turn ${event.turn} FAILED` +
            (event.error ? `: ${detail(event.error.message)}` : '') +
            ` (${event.consecutiveFailures} in a row)`,
        );
      }
      return event.outcome === 'aborted' ? agent(`turn ${event.turn} aborted`) : null;
    case 'agent.dropped':
      return agent(`DROPPED: ${detail(event.reason)}`);
    case 'coordination.finished': {
      const tallies = Object.entries(event.tallies)
        .map(([id, count]) => `${id}=${count}`)
        .join(', ');
      return run(
        `COORDINATION FINISHED (${event.reason})` +
          (event.winnerId
            ? `; winner ${event.winnerId} (${event.winnerLabel ?? 'no label'})`
            : '; no winner') +
          (tallies ? `; votes ${tallies}` : ''),
      );
    }
    case 'presentation.started':
      return agent(`presenting final answer (${event.mode})`);
    case 'presentation.finished':
      return agent(
        `FINAL ${event.label}` +
          (event.fallback
            ? ' (stored answer used' + (event.error ? `: ${detail(event.error.message)})` : ')')
            : ''),
      );
    case 'run.finished':
      return run(
        (startTs) =>
          `RUN FINISHED: ${event.status}, exit code ${event.exitCode}, ${seconds(event.ts - startTs)}s` +
          (event.error ? `; ${detail(event.error.message)}` : ''),
      );
    default:
      return null;
  }
}
