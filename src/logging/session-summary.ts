import type { Session, StoredTurn } from './session-types.js';

/** What a turn's status reads like in `summary.md`. */
function outcomeOf(turn: StoredTurn): string {
  const winner = turn.winnerId
    ? `${turn.winnerId}${turn.winnerLabel ? ` (${turn.winnerLabel})` : ''}`
    : 'no winner';
  const error = turn.error ? ` — ${turn.error.message}` : '';
  return `${winner} — ${turn.status}, exit code ${turn.exitCode}${error}`;
}

/** A question or answer as a Markdown block quote, so headings or rules inside it stay inert. */
function quote(text: string): string {
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

/** The human-readable `summary.md` of a session: every turn's question, winner and answer. */
export function formatSessionSummary(session: Session): string {
  const lines = [
    `# MassGen session ${session.id}`,
    '',
    `- Created: ${session.createdAt}`,
    `- Updated: ${session.updatedAt}`,
    `- Config: ${session.configSource}`,
  ];
  if (session.agents.length > 0) {
    lines.push(`- Agents: ${session.agents.map((a) => `${a.id} (${a.backend}/${a.model})`).join(', ')}`);
  }
  lines.push(`- Turns: ${session.turns.length}`, '');
  if (session.turns.length === 0) lines.push('No turns yet.', '');
  for (const turn of session.turns) {
    lines.push(`## Turn ${turn.index}`, '', '**Question**', '', quote(turn.question), '');
    lines.push(`**Winner:** ${outcomeOf(turn)}`, '');
    lines.push('**Answer**', '', turn.answer === null ? '_(no answer)_' : quote(turn.answer), '');
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
