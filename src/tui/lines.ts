import type { AgentState, RunState } from '../types/run-state.js';
import { currentTallies } from '../types/run-state.js';
import {
  cutLine,
  fitLine,
  formatArguments,
  formatElapsed,
  headLines,
  seconds,
  tailLines,
  wrapText,
} from './format.js';
import {
  currentApproval,
  unansweredApprovals,
  type AgentView,
  type TimelineKind,
  type UiState,
  type ViewState,
} from './view-state.js';
import { cell, padEndTo, textWidth } from '../util/text.js';
import { indent, line, lines, type StyledLine } from './styled-line.js';
import { transcriptLines } from './transcript-lines.js';
import { scoreLines } from './score-lines.js';
import { subagentLine } from './reduce-subagent-events.js';

// Components import every screen's lines from here, the transcript's included.
export type { StyledLine } from './styled-line.js';
export { transcriptLines } from './transcript-lines.js';
export { scoreLines } from './score-lines.js';

/** Screen chrome around the body: the header's two lines and the footer's one. */
export const HEADER_LINES = 2;
export const FOOTER_LINES = 1;
/** Rows used when the terminal does not say (ink-testing-library, pipes). */
export const DEFAULT_ROWS = 24;
export const DEFAULT_COLUMNS = 80;

/**
 * Lines available between header and footer, less `reserved` rows (the approval prompt). One row is
 * kept free: Ink redraws a frame as tall as the terminal by clearing the whole screen (and
 * scrollback), so the live frame stays shorter.
 */
export const bodyHeight = (rows: number, reserved = 0): number =>
  Math.max(3, rows - 1 - HEADER_LINES - FOOTER_LINES - reserved);

/** Colours that tell agents apart, in run order. */
const AGENT_COLORS = ['cyan', 'magenta', 'yellow', 'green', 'blue', 'red'] as const;
export const agentColor = (index: number): string => AGENT_COLORS[index % AGENT_COLORS.length] ?? 'white';

// --- agent panels -----------------------------------------------------------------------------------

/** The body of an agent panel: the tail of what it streams, or a word on where it stands. */
export function panelBody(
  agent: AgentState,
  view: AgentView,
  latestAnswer: string | null,
  width: number,
  max: number,
): StyledLine[] {
  // One line per subagent under the agent's own output, keeping at least one line for that output.
  const subagents = view.subagents.slice(0, Math.max(0, max - 1)).map((s) =>
    line(fitLine(subagentLine(s), width), {
      color: s.state === 'running' ? 'cyan' : s.state === 'completed' ? 'green' : 'red',
    }),
  );
  return [...ownPanelBody(agent, view, latestAnswer, width, max - subagents.length), ...subagents];
}

function ownPanelBody(
  agent: AgentState,
  view: AgentView,
  latestAnswer: string | null,
  width: number,
  max: number,
): StyledLine[] {
  if (max <= 0) return [];
  if (agent.status === 'dropped') {
    return lines(
      wrapText(`✖ dropped: ${agent.droppedReason ?? 'failure budget spent'}`, width).slice(0, max),
      {
        color: 'red',
      },
    );
  }
  if (agent.status === 'failed') {
    const message = agent.lastError?.message ?? 'unknown error';
    return lines(wrapText(`✖ turn failed: ${message}`, width).slice(0, max), { color: 'red' });
  }
  if (view.text.trim() !== '') return lines(tailLines(view.text, width, max));
  if (view.reasoning.trim() !== '')
    return lines(tailLines(view.reasoning, width, max), { dim: true, italic: true });
  if ((agent.status === 'answered' || agent.status === 'done') && latestAnswer !== null) {
    const head = headLines(latestAnswer, width, max - 1);
    return [
      line(fitLine(`✔ answer ${agent.latestLabel ?? ''}`, width), { color: 'green' }),
      ...lines(head.lines, { dim: true }),
    ].slice(0, max);
  }
  if (agent.status === 'voted' && agent.vote) {
    return lines(wrapText(`→ ${agent.vote.targetLabel}: ${agent.vote.reason}`, width).slice(0, max), {
      dim: true,
    });
  }
  if (agent.status === 'waiting') return [line('waiting…', { dim: true })];
  return [];
}

/** The panel's bottom line: a retry being waited for, or the latest tool call. */
export function panelStatusLine(view: AgentView, width: number): StyledLine | null {
  if (view.retry) {
    const { attempt, delayMs, message } = view.retry;
    return line(fitLine(`… retry ${attempt} in ${seconds(delayMs)}: ${message}`, width), { color: 'yellow' });
  }
  const tool = view.tool;
  if (!tool) return null;
  const name = `${tool.toolName}${tool.providerExecuted ? ' [provider]' : ''}`;
  const took = seconds(tool.durationMs ?? 0);
  switch (tool.state) {
    case 'running':
      return line(fitLine(`⚙ ${name} ${formatArguments(tool.args, width)} …`, width), { color: 'yellow' });
    case 'awaiting-approval':
      return line(fitLine(`? ${name} waits for approval: ${formatArguments(tool.args, width)}`, width), {
        color: 'yellow',
        bold: true,
      });
    case 'ok':
      return line(fitLine(`⚙ ${name} ✓ ${took}`, width), { dim: true });
    case 'error':
      return line(fitLine(`⚙ ${name} ✗ failed after ${took}`, width), { color: 'red' });
    case 'denied':
      return line(fitLine(`✖ ${name} denied`, width), { color: 'red' });
    case 'deferred':
      return line(fitLine(`⏸ ${name} planned (not run while planning)`, width), { color: 'blue' });
  }
}

// --- timeline ---------------------------------------------------------------------------------------

const TIMELINE_STYLE: Record<TimelineKind, Omit<StyledLine, 'text'>> = {
  run: { bold: true },
  turn: { dim: true },
  retry: { color: 'yellow' },
  rejected: { color: 'yellow' },
  answer: { color: 'green', bold: true },
  vote: { color: 'magenta' },
  'stale-vote': { dim: true },
  'votes-reset': { color: 'yellow' },
  update: { color: 'blue' },
  restart: { color: 'yellow' },
  failed: { color: 'red' },
  aborted: { dim: true },
  dropped: { color: 'red', bold: true },
  coordination: { bold: true },
  presentation: { color: 'cyan' },
  final: { color: 'green', bold: true },
  finished: { bold: true },
  'mcp-ready': { dim: true },
  'mcp-failed': { color: 'red' },
  subagent: { color: 'cyan' },
  warning: { color: 'yellow' },
  planning: { color: 'blue' },
  approval: { color: 'yellow', bold: true },
  approved: { color: 'green' },
  denied: { color: 'red' },
  human: { color: 'cyan', bold: true },
};

/** The coordination table: one row per significant event — time since the start, agent, what happened. */
export function timelineLines(state: ViewState, width: number): StyledLine[] {
  const start = state.run.startedAt ?? state.timeline[0]?.ts ?? 0;
  const ids = state.run.agents.map((a) => a.agentId);
  const idWidth = Math.min(16, Math.max(5, ...ids.map((id) => textWidth(id))));
  const timeWidth = 7;
  const entryWidth = Math.max(10, width - timeWidth - idWidth - 4);
  const out: StyledLine[] = [];
  for (const entry of state.timeline) {
    const time = formatElapsed(entry.ts - start).padStart(timeWidth);
    const who = cell(entry.agentId ?? '—', idWidth);
    const wrapped = wrapText(entry.text, entryWidth);
    wrapped.forEach((text, i) => {
      const prefix = i === 0 ? `${time}  ${who}  ` : ' '.repeat(timeWidth + idWidth + 4);
      out.push(line(prefix + text, TIMELINE_STYLE[entry.kind]));
    });
  }
  if (state.timeline.length === 0) out.push(line('No events yet.', { dim: true }));
  return out;
}

// --- votes ------------------------------------------------------------------------------------------

/** Counted votes per agent id: live during coordination, the final tallies after it. */
export function tallies(run: RunState): Record<string, number> {
  return run.coordinationEnd !== null ? run.tallies : currentTallies(run);
}

/** `claude 2 · gpt 1`, most votes first, or null when nobody has a vote. */
export function tallyText(run: RunState): string | null {
  const entries = Object.entries(tallies(run)).filter(([, n]) => n > 0);
  if (entries.length === 0) return null;
  return entries
    .sort((a, b) => b[1] - a[1])
    .map(([id, n]) => `${id} ${n}`)
    .join(' · ');
}

/** Every vote cast: voter → target label, counted/stale/cleared, reason; then the tallies. */
export function votesLines(state: ViewState, width: number): StyledLine[] {
  const run = state.run;
  const start = run.startedAt ?? 0;
  const out: StyledLine[] = [];
  const tally = tallyText(run);
  out.push(
    line(
      fitLine(
        `${run.coordinationEnd !== null ? 'Final tallies' : 'Current tallies'}: ${tally ?? 'no votes yet'}`,
        width,
      ),
      {
        bold: true,
      },
    ),
  );
  out.push(line(''));
  if (run.votes.length === 0) {
    out.push(line('No votes cast yet.', { dim: true }));
    return out;
  }
  const idWidth = Math.min(16, Math.max(5, ...run.votes.map((v) => textWidth(v.voterId))));
  const labelWidth = Math.max(8, ...run.votes.map((v) => textWidth(v.targetLabel)));
  // A counted vote still holds if it is the voter's latest counted vote and the voter still has a vote.
  const lastCounted = new Map<string, number>();
  run.votes.forEach((v, i) => {
    if (v.counted) lastCounted.set(v.voterId, i);
  });
  run.votes.forEach((vote, i) => {
    const voter = run.agents.find((a) => a.agentId === vote.voterId);
    const holds = vote.counted && lastCounted.get(vote.voterId) === i && voter?.vote != null;
    const status = !vote.counted ? 'stale' : holds ? 'counted' : 'cleared';
    const style: Omit<StyledLine, 'text'> =
      status === 'counted' ? { color: 'green' } : status === 'stale' ? { color: 'yellow' } : { dim: true };
    const head =
      `${formatElapsed(vote.ts - start).padStart(7)}  ${cell(vote.voterId, idWidth)} → ` +
      `${padEndTo(vote.targetLabel, labelWidth)} (${vote.targetAgentId})  ${status.padEnd(7)}`;
    out.push(line(cutLine(head, width), style));
    const reason = wrapText(vote.reason.trim() || '(no reason)', width - 11);
    out.push(...lines(indent(reason, ' '.repeat(11)).slice(0, 3), { dim: true }));
  });
  return out;
}

// --- scrolling --------------------------------------------------------------------------------------

/** The lines a scrolling screen shows for `ui`, or null on the panels screen. */
export function screenLines(state: ViewState, ui: UiState, width: number): StyledLine[] | null {
  switch (ui.mode) {
    case 'agent': {
      const agent = state.run.agents[ui.selectedAgent];
      return transcriptLines(agent ? state.agents[agent.agentId] : undefined, width);
    }
    case 'table':
      return timelineLines(state, width);
    case 'votes':
      return [...votesLines(state, width), ...scoreLines(state.run, width)];
    case 'panels':
      return null;
  }
}

/** Rows a scrolling screen has for its lines: the body (less `reserved` rows) less its title line. */
export const screenHeight = (rows: number, reserved = 0): number =>
  Math.max(1, bodyHeight(rows, reserved) - 1);

/** How far the current screen can scroll back. */
export function scrollExtent(state: ViewState, ui: UiState, columns: number, rows: number): number {
  const all = screenLines(state, ui, columns);
  const reserved = approvalPromptHeight(state, ui);
  return all ? Math.max(0, all.length - screenHeight(rows, reserved)) : 0;
}

/** The window of `all` that shows `height` rows, `scroll` rows back from the end. */
export function windowLines(
  all: StyledLine[],
  height: number,
  scroll: number,
): { lines: StyledLine[]; above: number; below: number } {
  const maxScroll = Math.max(0, all.length - height);
  const back = Math.min(Math.max(0, scroll), maxScroll);
  const end = all.length - back;
  const start = Math.max(0, end - height);
  return { lines: all.slice(start, end), above: start, below: back };
}

// --- approval prompt --------------------------------------------------------------------------------

/** Lines inside the approval prompt's border. */
const APPROVAL_LINES = 3;

/** Rows the approval prompt takes (borders included), or 0 when nothing waits. */
export const approvalPromptHeight = (state: ViewState, ui: UiState): number =>
  currentApproval(state, ui) ? APPROVAL_LINES + 2 : 0;

/**
 * The approval prompt: which agent wants to run which tool, its arguments on one line, and the keys
 * (`canAnswer`: `y`/`n` reach someone who can answer). Empty when nothing waits.
 */
export function approvalPromptLines(
  state: ViewState,
  ui: UiState,
  width: number,
  canAnswer: boolean,
): StyledLine[] {
  const waiting = unansweredApprovals(state, ui);
  const approval = waiting[0];
  if (!approval) return [];
  const w = Math.max(10, width);
  const phase = approval.phase === 'presentation' ? ' (presenting the final answer)' : '';
  const more = waiting.length > 1 ? `  ·  ${waiting.length - 1} more waiting` : '';
  return [
    line(fitLine(`? ${approval.agentId} wants to run ${approval.toolName}${phase}`, w), {
      color: 'yellow',
      bold: true,
    }),
    line(fitLine(`  ${formatArguments(approval.args, w)}`, w)),
    canAnswer
      ? line(cutLine(`y approve  ·  n deny${more}`, w), { bold: true })
      : line(cutLine(`waiting for an answer from outside this view${more}`, w), { dim: true }),
  ];
}
