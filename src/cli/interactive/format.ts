import path from 'node:path';
import { stringify } from 'yaml';
import type {
  SessionListing,
  SessionProblem,
  SessionRunner,
  SessionStatus,
  SessionTurnSummary,
} from '../../app/sessions.js';
import { formatCostOf, oneLine, padEndTo, padStartTo, textWidth, truncate } from '../../util/text.js';
import { inertText } from '../../util/terminal-text.js';

/** Every interactive command, for `/help`. */
export const HELP_TEXT = `Commands:
  /help              show this help
  /status            agents (backend/model), turn count, tokens and cost so far
  /history           earlier turns: question → winner, answer preview
  /clear             start a new session (new id, no history) with the same agents
  /config            the config in use (secrets masked)
  /quit, /exit, /q   leave (Ctrl-D too)
Anything else is a question for the agents; they see the earlier questions and final answers of this
session. Ctrl-C cancels a running turn; Ctrl-C at the prompt quits.
`;

/** A path relative to `cwd` when it is inside it (shorter to read), else absolute. */
export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/*
 * Every formatter below returns text for the terminal that quotes models, tools or session files
 * (answers, questions, errors, config): it is made inert (escape sequences shown, never run), and
 * then measured — previews and columns count terminal columns (util/text), so CJK text and emoji line up
 * and are never cut inside a character.
 */

/** One line of untrusted text, inert, cut to `max` columns. */
const preview = (text: string, max: number): string => truncate(oneLine(inertText(text)), max);

/** The banner printed when interactive mode starts. */
export function formatBanner(runner: SessionRunner): string {
  const agents = runner.agents.map((a) => `${a.id} (${a.backend}/${a.model})`).join(', ');
  const earlier = runner.turns.length;
  const session =
    runner.session === null
      ? `${runner.sessionId} (new)`
      : `${runner.sessionId} (resumed, ${plural(earlier, 'earlier turn')})`;
  return inertText(
    [
      `MassGen interactive — ${plural(runner.agents.length, 'agent')}: ${agents}`,
      `Session: ${session}`,
      'Type a question, /help for commands, /quit or Ctrl-D to leave.',
      '',
    ].join('\n'),
  );
}

/** One line per turn: question → winner: answer preview. */
export function formatHistory(turns: readonly SessionTurnSummary[]): string {
  if (turns.length === 0) return 'No turns yet in this session.\n';
  const lines = turns.map((turn) => {
    const question = preview(turn.question, 80);
    if (turn.unfinished) {
      return `  ${turn.index}. ${question} → unfinished (the process ended while it ran; its log folder is picked up)`;
    }
    if (turn.answer === null) {
      const why = turn.error ? `: ${preview(turn.error.message, 100)}` : '';
      return `  ${turn.index}. ${question} → no answer (${turn.status}${why})`;
    }
    return `  ${turn.index}. ${question} → ${turn.winnerId ?? 'no winner'}: ${preview(turn.answer, 100)}`;
  });
  return inertText(`${lines.join('\n')}\n`);
}

/** `/status`: agents with backend/model and their tokens and cost, turn count, totals. */
export function formatStatus(status: SessionStatus, cwd: string): string {
  const priced = status.pricedAgents === null ? null : new Set(status.pricedAgents);
  // Before the first turn nothing is known to be unpriced (and nothing has been spent).
  const cost = (ids: readonly string[]): string =>
    formatCostOf(
      ids.map((id) => ({ usd: status.costUsd[id] ?? 0, priced: priced === null || priced.has(id) })),
    );
  const idWidth = Math.max(...status.agents.map((a) => textWidth(inertText(a.id))), 5);
  const lines = [
    `Session: ${status.sessionId} (${status.sessionDir === null ? 'not saved yet: saved with its first turn' : displayPath(status.sessionDir, cwd)})`,
    `Turns: ${status.turnCount}`,
    'Agents:',
  ];
  for (const agent of status.agents) {
    const u = status.usage[agent.id];
    lines.push(
      `  ${padEndTo(inertText(agent.id), idWidth)}  ${agent.backend}/${agent.model} — ${u?.inputTokens ?? 0} in / ${u?.outputTokens ?? 0} out tokens, ${cost([agent.id])}`,
    );
  }
  lines.push(
    `Tokens: ${status.totalUsage.inputTokens} in / ${status.totalUsage.outputTokens} out`,
    `Cost: ${cost(status.agents.map((a) => a.id))}`,
  );
  return inertText(`${lines.join('\n')}\n`);
}

/** `/config`: the validated config, secrets masked, as YAML. */
export function formatConfig(runner: SessionRunner): string {
  return inertText(
    `# ${runner.configSource} (secrets masked)\n${stringify(runner.maskedConfig(), { lineWidth: 0 })}`,
  );
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Local `YYYY-MM-DD HH:MM`. */
export function formatLocalTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** `--list-sessions`: a table (id, updated, turns, first question), then the unreadable folders. */
export function formatSessionTable(
  sessions: readonly SessionListing[],
  problems: readonly SessionProblem[],
  root: string,
): string {
  const out: string[] = [];
  if (sessions.length === 0) out.push(inertText(`No sessions in ${root}.`));
  else {
    const rows = sessions.map((s) =>
      [
        s.id,
        formatLocalTime(s.updatedAt),
        String(s.turnCount),
        s.firstQuestion === null ? '(no questions yet)' : preview(s.firstQuestion, 70),
      ].map(inertText),
    );
    const header = ['ID', 'UPDATED', 'TURNS', 'FIRST QUESTION'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => textWidth(r[i] ?? ''))));
    const line = (cells: readonly string[]) =>
      cells
        .map((cell, i) => (i === 2 ? padStartTo(cell, widths[i] ?? 0) : padEndTo(cell, widths[i] ?? 0)))
        .join('  ')
        .trimEnd();
    out.push(line(header), ...rows.map(line));
  }
  if (problems.length > 0) {
    out.push('', `Skipped ${plural(problems.length, 'unreadable session folder')}:`);
    for (const p of problems) out.push(inertText(`  ${p.path}: ${p.message}`));
  }
  return `${out.join('\n')}\n`;
}
