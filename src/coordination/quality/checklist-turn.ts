import type { ToolCall } from '../../types/messages.js';
import type { SeenAnswers } from '../coordination-state.js';
import type { RunContext } from '../run-context.js';
import { asObject, workflowToolDefinitions } from '../workflow-tools.js';
import {
  checklistToolDefinition,
  iterateAnswerToolDefinition,
  parseChecklist,
  SUBMIT_CHECKLIST,
  type CriterionScore,
} from './checklist-tool.js';
import { candidateOrder, passMark } from './gate.js';
import type { QualityBook } from './quality-book.js';
import {
  checklistEnforcement as say,
  checklistSystemNote,
  feedbackNote,
  verdictMessage,
} from './quality-prompts.js';
import type { TurnPolicy } from './turn-policy.js';

interface Verdict {
  kind: 'iterate' | 'converge';
  best: number;
  round: number;
}

/**
 * One agent's turn under `voting_sensitivity: checklist_gated`. Once answers exist, the only workflow
 * tool offered is `submit_checklist`; its verdict then offers exactly one next step — `new_answer` with
 * an improvement plan (iterate) or `vote` for the best answer (converge). A refreshed view voids the
 * verdict: the new answers must be scored too.
 */
export function checklistPolicy(ctx: RunContext, agentIndex: number, book: QualityBook): TurnPolicy {
  const { state } = ctx;
  const agent = state.agent(agentIndex);
  const anon = (index: number) => state.agent(index).anonymousId;
  let verdict: Verdict | null = null;
  let mayIterate = true;

  /** The authors in the order this scorer reads and scores them (position bias). */
  const order = (seen: SeenAnswers) =>
    candidateOrder([...seen.keys()], agentIndex, book.nextRound(agentIndex));

  const handleCall = (call: ToolCall, seen: SeenAnswers) => {
    const refuse = (reason: string) => ({ content: reason, refused: reason });
    if (seen.size === 0) return refuse(say.nothingToScore);
    if (verdict !== null)
      return refuse(
        say.alreadyScored(
          verdict.kind === 'iterate' ? say.iterateNext : say.convergeNext(anon(verdict.best)),
        ),
      );
    const authors = order(seen);
    const parsed = parseChecklist(call.arguments, book.criteria, authors.map(anon));
    if (parsed.kind === 'invalid') return refuse(parsed.reason);
    const answerOf = (author: number) => state.answerAt(author, seen.get(author) as number);
    const scores = new Map(
      authors.map((author) => [
        author,
        {
          label: answerOf(author).label,
          scores: Object.fromEntries(
            Object.entries(parsed.scores.get(anon(author)) ?? {}).map(([id, s]): [string, CriterionScore] => [
              id,
              { score: s.score, reason: ctx.scrub(s.reason) },
            ]),
          ),
        },
      ]),
    );
    const { record, demoted } = book.record(agentIndex, scores, (a) => answerOf(a).order, mayIterate);
    const { result, round } = record;
    ctx.emit({
      type: 'checklist.submitted',
      agentId: agent.spec.id,
      round,
      order: authors.map((a) => state.agent(a).spec.id),
      scores: authors.flatMap((author) => {
        const entry = scores.get(author);
        return book.criteria.map((c) => ({
          targetAgentId: state.agent(author).spec.id,
          targetLabel: entry?.label ?? '',
          criterionId: c.id,
          score: entry?.scores[c.id]?.score ?? 0,
          reason: entry?.scores[c.id]?.reason ?? '',
        }));
      }),
    });
    const bestLabel = scores.get(result.best)?.label ?? '';
    ctx.emit({
      type: 'checklist.verdict',
      agentId: agent.spec.id,
      round,
      verdict: result.verdict,
      basis: result.basis,
      bestAgentId: state.agent(result.best).spec.id,
      bestLabel,
      aggregates: Object.fromEntries([...result.aggregates].map(([i, v]) => [state.agent(i).spec.id, v])),
      failing: result.failing,
      demoted: [...demoted],
    });
    verdict = { kind: result.verdict, best: result.best, round };
    const best = scores.get(result.best)?.scores ?? {};
    return {
      content: verdictMessage({
        round,
        verdict: result.verdict,
        basis: result.basis,
        best: anon(result.best),
        aggregate: result.aggregates.get(result.best) ?? 0,
        failing: result.failing.map((id) => {
          const criterion = book.criteria.find((c) => c.id === id);
          return {
            id,
            criterion,
            score: best[id]?.score ?? 0,
            mark: passMark(criterion?.tier ?? 'standard', demoted.has(id), book.threshold) ?? 0,
            reason: best[id]?.reason ?? '',
          };
        }),
        demoted,
      }),
      refused: null,
    };
  };

  return {
    ownCalls: new Set([SUBMIT_CHECKLIST]),
    systemNote: () => checklistSystemNote(book.criteria, book.threshold, book.aspiration),
    openingNotes: () => {
      const last = book.lastOf(agentIndex);
      const note = feedbackNote({
        received: book
          .feedbackOn(agentIndex)
          .map((f) => ({ scorer: anon(f.scorer), label: f.label, scores: f.scores })),
        criteria: book.criteria,
        lastVerdict: last
          ? {
              verdict: last.result.verdict,
              best: last.scores.get(last.result.best)?.label ?? anon(last.result.best),
              failing: last.result.failing,
            }
          : null,
      });
      return note === null ? [] : [note];
    },
    view: (seen) =>
      order(seen).map((author) => ({
        anonymousId: anon(author),
        content: state.answerAt(author, seen.get(author) as number).content,
      })),
    tools: (_votable, mayAnswer, seen) => {
      mayIterate = mayAnswer;
      if (seen.size === 0) return workflowToolDefinitions([], mayAnswer);
      if (verdict === null) return [checklistToolDefinition(book.criteria, order(seen).map(anon))];
      if (verdict.kind === 'iterate') return [iterateAnswerToolDefinition()];
      return workflowToolDefinitions([anon(verdict.best)], false);
    },
    handleCall,
    viewChanged: () => {
      verdict = null;
    },
    afterUpdate: () => say.rescore,
    noWorkflowCall: (seen) =>
      seen.size === 0
        ? null
        : verdict === null
          ? say.unfinishedChecklist
          : verdict.kind === 'iterate'
            ? say.iterateNext
            : say.convergeNext(anon(verdict.best)),
    checkAnswer: (call, seen) => {
      if (seen.size === 0) return { plan: null };
      if (verdict === null) return { refusal: say.scoreFirst };
      if (verdict.kind === 'converge') return { refusal: say.convergeNext(anon(verdict.best)) };
      const plan = asObject(call.arguments)?.['improvement_plan'];
      if (typeof plan !== 'string' || plan.trim() === '') return { refusal: say.needPlan };
      return { plan: ctx.scrub(plan.trim()) };
    },
    answerAccepted: (plan) => {
      if (plan !== null && verdict !== null)
        ctx.emit({ type: 'checklist.plan', agentId: agent.spec.id, round: verdict.round, plan });
    },
    checkVote: (targetIndex) => {
      if (verdict === null) return say.scoreFirst;
      if (verdict.kind === 'iterate') return say.iterateNext;
      return targetIndex === verdict.best ? null : say.voteForBest(anon(verdict.best));
    },
  };
}
