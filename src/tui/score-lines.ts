import type { RunState } from '../types/run-state.js';
import { cell, padEndTo } from '../util/text.js';
import { cutLine, fitLine, wrapText } from './format.js';
import { indent, line, lines, type StyledLine } from './styled-line.js';

/**
 * The quality loop on the votes screen: the score matrix of each checklist round (authors × criteria,
 * the mean score, marked `!` below the pass mark), the verdicts, the criteria, and — in decomposition
 * mode — the subtasks. Pure, from the run state, so a replayed run shows the same.
 */
export function scoreLines(run: RunState, width: number): StyledLine[] {
  const q = run.quality;
  const out: StyledLine[] = [];
  if (q.subtasks.length > 0) {
    out.push(line(''), line(fitLine(`Subtasks (presenter: ${q.presenterId ?? '—'})`, width), { bold: true }));
    for (const s of q.subtasks) out.push(line(cutLine(`  ${s.id}  ${s.ownerId}: ${s.title}`, width)));
  }
  if (q.criteria.length === 0) return out;
  const threshold = q.threshold ?? 7;
  const demoted = q.demoted.length > 0 ? ` · demoted: ${q.demoted.join(', ')}` : '';
  out.push(
    line(''),
    line(
      fitLine(
        `Checklist scores (${q.source}${q.preset ? ` ${q.preset}` : ''}, pass mark ${threshold})${demoted}`,
        width,
      ),
      { bold: true },
    ),
  );
  const ids = q.criteria.map((c) => c.id);
  const authors = run.agents.map((a) => a.agentId);
  const nameWidth = Math.min(16, Math.max(6, ...authors.map((a) => a.length)));
  if (q.rounds.length === 0) out.push(line('No checklist submitted yet.', { dim: true }));
  for (const round of q.rounds) {
    out.push(
      line(fitLine(`Round ${round.round} · scored by ${round.scorers.join(', ')}`, width), { dim: true }),
    );
    out.push(line(cutLine(`${padEndTo('', nameWidth)}  ${ids.map((id) => cell(id, 5)).join(' ')}`, width)));
    for (const author of authors) {
      const row = round.cells[author];
      if (!row) continue;
      const cells = q.criteria.map((c) => {
        const score = row[c.id];
        if (!score) return cell('  –', 5);
        const mark = c.tier === 'primary' ? threshold : c.tier === 'standard' ? threshold - 1 : -1;
        return cell(`${score.mean.toFixed(1)}${score.mean < mark ? '!' : ''}`, 5);
      });
      out.push(line(cutLine(`${cell(author, nameWidth)}  ${cells.join(' ')}`, width)));
    }
  }
  if (q.verdicts.length > 0) {
    out.push(line(''), line('Verdicts', { bold: true }));
    for (const v of q.verdicts) {
      const style = v.verdict === 'converge' ? { color: 'green' } : { color: 'yellow' };
      const fails = v.failing.length > 0 ? `, fails ${v.failing.join(', ')}` : '';
      out.push(
        line(cutLine(`  ${v.agentId} r${v.round}: ${v.verdict} — best ${v.bestLabel}${fails}`, width), style),
      );
    }
  }
  out.push(line(''), line('Criteria', { bold: true }));
  for (const c of q.criteria)
    out.push(
      ...lines(indent(wrapText(`${c.id} [${c.tier}] ${c.text}`, width - 2)).slice(0, 3), { dim: true }),
    );
  return out;
}
