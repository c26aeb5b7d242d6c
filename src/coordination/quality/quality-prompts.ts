import type { Criterion, Subtask } from '../../types/quality-events.js';
import { historyBlock, restartBlock } from '../prompts.js';
import type { HistoryTurn } from '../settings.js';
import type { CriterionScore } from './checklist-tool.js';

/**
 * Every text the models read in the quality loop: the checklist gate, criteria generation, the
 * decomposition plan and the final-answer strategies. Kept apart from prompts.ts so the wording of each
 * mode can be reviewed on its own.
 */

export function criteriaBlock(criteria: readonly Criterion[], threshold: number): string {
  const lines = criteria.map((c) => {
    const mark =
      c.tier === 'primary'
        ? `must reach ${threshold}`
        : c.tier === 'standard'
          ? `should reach ${threshold - 1}`
          : 'stretch goal';
    const avoid = c.antiPatterns.length > 0 ? ` Watch for: ${c.antiPatterns.join('; ')}.` : '';
    return `- ${c.id} [${c.tier}, ${mark}] ${c.text}${avoid}`;
  });
  return lines.join('\n');
}

/** The checklist gate, as every checklist-gated agent's system prompt states it. */
export function checklistSystemNote(
  criteria: readonly Criterion[],
  threshold: number,
  aspiration: string | null,
): string {
  const goal = aspiration ? `\nWhat an excellent answer achieves: ${aspiration}` : '';
  return `CHECKLIST GATE: once answers exist, you may not answer again or vote until you have scored every current answer with \`submit_checklist\` — each criterion below from 0 to 10, with a specific reason. The reply is your verdict:
- ITERATE: the best answer still fails a criterion. State your improvement plan and submit an improved answer with \`new_answer\`.
- CONVERGE: the best answer passes every criterion. Vote for it with \`vote\`.
Score honestly and specifically; criteria on which every answer scores alike count less.${goal}
EVALUATION CRITERIA:
${criteriaBlock(criteria, threshold)}`;
}

const tierMark = (criterion: Criterion | undefined, demoted: boolean) =>
  `${criterion?.tier ?? 'standard'}${demoted ? ', demoted: it does not tell the answers apart' : ''}`;

/** The tool result of an accepted checklist: the verdict and what to do now. */
export function verdictMessage(options: {
  round: number;
  verdict: 'iterate' | 'converge';
  basis: 'scores' | 'answer_limit';
  best: string;
  aggregate: number;
  failing: readonly {
    criterion: Criterion | undefined;
    id: string;
    score: number;
    mark: number;
    reason: string;
  }[];
  demoted: ReadonlySet<string>;
}): string {
  const head = `CHECKLIST RECORDED (round ${options.round}). Best answer by your scores: ${options.best} (${options.aggregate.toFixed(1)}/10).`;
  if (options.verdict === 'converge') {
    const why =
      options.basis === 'answer_limit'
        ? 'You have used up your answers, so you cannot iterate.'
        : 'It passes every criterion.';
    return `${head} ${why}\nVERDICT: CONVERGE — vote for ${options.best} with \`vote\`.`;
  }
  const gaps = options.failing
    .map(
      (f) =>
        `- ${f.id} [${tierMark(f.criterion, options.demoted.has(f.id))}] ${f.score} < ${f.mark}: ${f.reason || '(no reason given)'}`,
    )
    .join('\n');
  return `${head} It falls short on:\n${gaps}\nVERDICT: ITERATE — call \`new_answer\` with \`improvement_plan\` (what you change, criterion by criterion) and \`content\` (your complete improved answer). Fix these criteria and keep what already passes.`;
}

/** The peers' latest scores of the agent's answers and its own last verdict, for its next opening message. */
export function feedbackNote(options: {
  received: readonly { scorer: string; label: string; scores: Record<string, CriterionScore> }[];
  criteria: readonly Criterion[];
  lastVerdict: { verdict: 'iterate' | 'converge'; best: string; failing: readonly string[] } | null;
}): string | null {
  const parts: string[] = [];
  if (options.received.length > 0) {
    const rows = options.criteria.map((c) => {
      const given = options.received.flatMap(({ scorer, label, scores }) => {
        const s = scores[c.id];
        return s ? [`${scorer} gave ${label} ${s.score}${s.reason ? ` (${s.reason})` : ''}`] : [];
      });
      return `${c.id}: ${given.join('; ')}`;
    });
    parts.push(`How the others scored your answer:\n${rows.join('\n')}`);
  }
  if (options.lastVerdict) {
    const v = options.lastVerdict;
    parts.push(
      v.verdict === 'iterate'
        ? `Your last checklist: ITERATE — the best answer (${v.best}) fell short on ${v.failing.join(', ')}.`
        : `Your last checklist: CONVERGE on ${v.best}.`,
    );
  }
  if (parts.length === 0) return null;
  return `<CHECKLIST FEEDBACK FROM THE LAST ROUND>\n${parts.join('\n\n')}\n<END OF CHECKLIST FEEDBACK>`;
}

export const checklistEnforcement = {
  scoreFirst:
    'Score the current answers with `submit_checklist` first; its verdict tells you whether to answer or vote.',
  nothingToScore: 'There are no answers to score yet. Submit your answer with `new_answer`.',
  alreadyScored: (next: string) => `You have already scored these answers. ${next}`,
  iterateNext: 'Your checklist says ITERATE: submit an improved answer with `new_answer`.',
  convergeNext: (best: string) => `Your checklist says CONVERGE: vote for ${best} with \`vote\`.`,
  needPlan:
    'State your `improvement_plan` (what you change, criterion by criterion) together with the improved `content`.',
  voteForBest: (best: string) => `Your checklist ranks ${best} best: vote for ${best}.`,
  sameStep:
    'Not accepted: read the verdict of your checklist first, then make the workflow call it asks for.',
  rescore:
    'CHECKLIST GATE: the answers changed, so your earlier verdict no longer holds. Score the current answers again with `submit_checklist` before you answer or vote.',
  unfinishedChecklist:
    'You did not finish your turn. Score every current answer with `submit_checklist`; its verdict tells you whether to answer or vote.',
};

/** The one-off request that writes criteria for the question when none are configured. */
export const DEFINE_CRITERIA = 'define_criteria';

export function criteriaGenerationPrompt(question: string): { system: string; user: string } {
  return {
    system: `You write evaluation criteria for a team of AI agents that will score each other's answers. Write 4 to 7 criteria specific to this task: each one checkable, about one aspect, and able to tell a good answer from a weak one. Mark each as primary (the answer fails without it), standard (expected of a good answer) or stretch (what makes it excellent), and name the typical mistakes (anti_patterns). Also state the aspiration: what an excellent answer achieves overall.`,
    user: `<TASK>\n${question}\n<END OF TASK>\n\nCall ${DEFINE_CRITERIA} with the aspiration and the criteria.`,
  };
}

/** The one-off request of `coordination_mode: decomposition`: split the task, one owner per part. */
export const PROPOSE_SUBTASKS = 'propose_subtasks';

export function decompositionPrompt(
  question: string,
  owners: readonly string[],
): { system: string; user: string } {
  return {
    system: `You split a task between ${owners.length} AI agents (${owners.join(', ')}) who work in parallel and see each other's work. Propose subtasks that together cover the whole task, do not overlap, and can be worked on at the same time. Give every agent at least one subtask (owner: its id). Each description says exactly what the part must deliver and how it fits with the others.`,
    user: `<TASK>\n${question}\n<END OF TASK>\n\nCall ${PROPOSE_SUBTASKS} with the subtasks.`,
  };
}

/** The decomposition instructions of an agent's system prompt. */
export function decompositionSystemNote(): string {
  return `DECOMPOSITION: the team split the task into subtasks, each owned by one agent. Work only on your own subtask(s) — in your workspace if you have one — and read the others' parts so that everything fits together (interfaces, names, facts, style). Finish your turn with exactly one workflow call:
- \`new_answer\` with your complete part (only your subtask(s); the presenter assembles the whole);
- \`vote\` once your part is complete: one entry per subtask part you can see, each with a reason — approve it, or say what still needs to change.
A new part resets all votes.`;
}

export function subtaskBlock(subtasks: readonly Subtask[], own: string): string {
  const all = subtasks
    .map(
      (s) =>
        `- ${s.id} (${s.ownerAnonymousId}${s.ownerAnonymousId === own ? ' — YOU' : ''}): ${s.title} — ${s.description}`,
    )
    .join('\n');
  const mine = subtasks.filter((s) => s.ownerAnonymousId === own).map((s) => s.id);
  return `<TEAM PLAN>\n${all}\n<END OF TEAM PLAN>\n\nYOUR SUBTASK${mine.length === 1 ? '' : 'S'}: ${mine.join(', ') || '(none)'}. Your answer is your part only.`;
}

/** The presenter's request in decomposition mode: assemble the parts into one answer. */
export function assemblySystemPrompt(systemMessage: string | undefined, planningMode: boolean): string {
  const base = `The team split the task into subtasks and each agent delivered its part. You are the presenter: assemble the parts into the final answer for the user. Keep the substance of every part, make them consistent (names, interfaces, facts, tone), fill small gaps at the seams, and follow the voters' remarks where they ask for a fix. Write the answer itself — do not mention the agents, the votes or this process.`;
  const plan = planningMode
    ? `\nPlanning is over: carry out the plan now — the tool calls that were only recorded during planning really run now.`
    : '';
  return systemMessage ? `${systemMessage.trim()}\n\n${base}${plan}` : `${base}${plan}`;
}

export function assemblyUserMessage(
  question: string,
  history: readonly HistoryTurn[],
  parts: readonly { subtask: Subtask; content: string | null; votes: readonly string[] }[],
): string {
  const blocks = parts
    .map(({ subtask, content, votes }) => {
      const remarks = votes.length === 0 ? '(no votes)' : votes.map((v) => `- ${v}`).join('\n');
      return `<${subtask.id}: ${subtask.title} — by ${subtask.ownerId} (${subtask.ownerAnonymousId})>\n${content ?? '(this part is missing: its owner delivered nothing)'}\n<votes on ${subtask.id}>\n${remarks}\n<end of ${subtask.id}>`;
    })
    .join('\n\n');
  return `${historyBlock(history)}<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>\n\n<PARTS>\n${blocks}\n<END OF PARTS>\n\nAssemble the final answer now.`;
}

/** The final answer when the presenter could not assemble it: the parts in subtask order. */
export function assembledFallback(parts: readonly { subtask: Subtask; content: string | null }[]): string {
  return parts
    .filter((p) => p.content !== null)
    .map((p) => `## ${p.subtask.title}\n\n${(p.content ?? '').trim()}`)
    .join('\n\n');
}

/** `final_answer_strategy: synthesize`: the top answers with their votes and checklist scores. */
export function synthesisUserMessage(
  question: string,
  history: readonly HistoryTurn[],
  answers: readonly {
    agentId: string;
    anonymousId: string;
    content: string;
    isOwn: boolean;
    votes: readonly { voter: string; reason: string }[];
    scores: Record<string, number> | null;
  }[],
  criteria: readonly Criterion[],
  restarts: readonly { reason: string; instructions: string }[],
): string {
  const blocks = answers
    .map((a) => {
      const votes =
        a.votes.length === 0
          ? '(no votes)'
          : a.votes.map((v) => `- ${v.voter}: ${v.reason || '(no reason given)'}`).join('\n');
      const scores =
        a.scores === null || Object.keys(a.scores).length === 0
          ? ''
          : `\nChecklist scores (mean): ${criteria.map((c) => `${c.id} ${a.scores?.[c.id] ?? '–'}`).join(', ')}`;
      return `<${a.agentId} (${a.anonymousId})${a.isOwn ? ' — YOUR ANSWER' : ''}>\n${a.content}\n<end of ${a.agentId}>\nVotes for it (${a.votes.length}):\n${votes}${scores}`;
    })
    .join('\n\n');
  const legend =
    criteria.length === 0
      ? ''
      : `\n\n<CRITERIA>\n${criteria.map((c) => `- ${c.id}: ${c.text}`).join('\n')}\n<END OF CRITERIA>`;
  return `${historyBlock(history)}<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>${restartBlock(restarts)}\n\n<TOP ANSWERS>\n${blocks}\n<END OF TOP ANSWERS>${legend}\n\nMerge these answers into the final answer now: keep every correct point, resolve disagreements, and let the votes and scores tell you which parts are strongest.`;
}
