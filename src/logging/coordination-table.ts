import type { RunEvent, RunEventOf } from '../types/events.js';
import { oneLine, padEndTo, padStartTo, textWidth, truncate, wrapText } from '../util/text.js';

/** Narrower columns wrap almost every cell; wider ones make three agents overflow a terminal. */
const MIN_COLUMN_WIDTH = 24;
const MAX_COLUMN_WIDTH = 40;
/** Reasons and error messages are cut here: the full text is in coordination_events.json. */
const MAX_DETAIL = 160;
const SEPARATOR = ' | ';

interface Column {
  agentId: string;
  header: string;
  width: number;
}

/** One table row: a cell in one agent's column, or (agentId null) a run-wide line across all of them. */
interface Row {
  ts: number;
  agentId: string | null;
  text: string;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

const detail = (text: string): string => truncate(oneLine(text), MAX_DETAIL);

/** The row an event contributes, or null for events too fine-grained to show (text, steps, most tool calls). */
function describe(event: RunEvent, startTs: number): Omit<Row, 'ts'> | null {
  const agent = (text: string): Omit<Row, 'ts'> => ({
    agentId: 'agentId' in event ? event.agentId : null,
    text,
  });
  const run = (text: string): Omit<Row, 'ts'> => ({ agentId: null, text });
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
        `RUN FINISHED: ${event.status}, exit code ${event.exitCode}, ${seconds(event.ts - startTs)}s` +
          (event.error ? `; ${detail(event.error.message)}` : ''),
      );
    default:
      return null;
  }
}

/** Columns in config order (from run.started), plus any agent that shows up without being announced. */
function columnsOf(events: readonly RunEvent[]): Column[] {
  const columns: Column[] = [];
  const add = (agentId: string, anonymousId: string | null): void => {
    if (columns.some((c) => c.agentId === agentId)) return;
    const header = anonymousId ? `${agentId} (${anonymousId})` : agentId;
    columns.push({
      agentId,
      header,
      width: Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, textWidth(header))),
    });
  };
  for (const event of events) {
    if (event.type === 'run.started') for (const a of event.agents) add(a.agentId, a.anonymousId);
    else if ('agentId' in event) add(event.agentId, null);
  }
  return columns;
}

/**
 * Renders the run as a human-readable grid: a time column (seconds since the run started), one column
 * per agent headed `agent id (anonymous id)`, one row per significant event, and run-wide events
 * (votes reset, coordination and run finished) as rows spanning every agent column. Long cells wrap
 * within their column, so columns stay aligned — in terminal columns (util/text), so CJK text and
 * emoji line up too. The text is kept as data (not made inert). Pure.
 */
export function formatCoordinationTable(events: readonly RunEvent[]): string {
  const first = events[0];
  if (!first) return 'No events recorded.\n';
  const runStarted = events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');
  const start = runStarted ?? first;
  const columns = columnsOf(events);
  const rows: Row[] = [];
  for (const event of events) {
    const row = describe(event, start.ts);
    if (row) rows.push({ ts: event.ts, ...row });
  }

  const times = rows.map((r) => seconds(r.ts - start.ts));
  const timeHeader = 'time (s)';
  const timeWidth = Math.max(timeHeader.length, ...times.map((t) => t.length));
  const spanWidth =
    columns.reduce((sum, c) => sum + c.width, 0) + SEPARATOR.length * Math.max(0, columns.length - 1);
  const gridWidth = Math.max(spanWidth, MIN_COLUMN_WIDTH);

  const lines: string[] = [];
  const emit = (time: string, cells: string[][], widths: number[]): void => {
    const height = Math.max(...cells.map((c) => c.length));
    for (let i = 0; i < height; i++) {
      const parts = cells.map((cell, j) => padEndTo(cell[i] ?? '', widths[j] ?? 0));
      lines.push([padStartTo(i === 0 ? time : '', timeWidth), ...parts].join(SEPARATOR).trimEnd());
    }
  };
  const rule = (): void => {
    const dashes = columns.length > 0 ? columns.map((c) => '-'.repeat(c.width)) : ['-'.repeat(gridWidth)];
    lines.push(['-'.repeat(timeWidth), ...dashes].join('-+-'));
  };

  const widths = columns.map((c) => c.width);
  emit(
    timeHeader,
    columns.map((c) => wrapText(c.header, c.width)),
    widths,
  );
  rule();
  rows.forEach((row, i) => {
    const time = times[i] ?? '';
    if (row.agentId === null) {
      emit(time, [wrapText(row.text, gridWidth)], [gridWidth]);
      return;
    }
    const cells = columns.map((c) => (c.agentId === row.agentId ? wrapText(row.text, c.width) : ['']));
    emit(time, cells, widths);
  });

  const title = [`Run: ${first.runId}`];
  if (runStarted) title.push(`Question: ${truncate(oneLine(runStarted.question), 200)}`);
  return `${title.join('\n')}\n\n${lines.join('\n')}\n`;
}
