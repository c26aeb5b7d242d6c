import { answersOf, DEMO_PERSONAS, type DemoAnswers, type DemoPersona } from './demo-answers.js';
import type { DemoTurn } from './demo-turn.js';

/** What a scripted agent does with one request: it says `say` first, then makes its move. */
export type DemoMove =
  /** `revises`: the agent's earlier answer this one replaces. */
  | { kind: 'answer'; say: string; content: string; revises?: string }
  | { kind: 'vote'; say: string; agentId: string; reason: string }
  | { kind: 'call'; say: string; name: string; input: Record<string, unknown> }
  | { kind: 'text'; text: string };

/** Ends every final answer the demo team writes, so no view can mistake it for a model's. */
export const SCRIPTED_NOTE =
  "(Scripted demo: massgen's built-in demo team wrote this answer; no model was called.)";

/** Whose answers a vote goes to first: the thorough one, then the brief one, then the hasty one. */
const PREFERENCE: readonly DemoPersona[] = ['grace', 'ada', 'linus'];

const REASONS: Record<DemoPersona, string> = {
  grace: 'complete and checked',
  ada: 'correct and to the point',
  linus: 'the only answer so far',
};

/** Who wrote each answer in view, told by its text; answers from outside the demo team are left out. */
export function authorsOf(turn: DemoTurn, known: DemoAnswers): Map<string, DemoPersona> {
  const authors = new Map<string, DemoPersona>();
  for (const [id, content] of turn.answers) {
    const author = DEMO_PERSONAS.find((p) => answersOf(p, known).includes(content.trim()));
    if (author) authors.set(id, author);
  }
  return authors;
}

/** True when every member of `roster` has an answer in view. */
export function seesEveryone(turn: DemoTurn, known: DemoAnswers, roster: readonly DemoPersona[]): boolean {
  const present = new Set(authorsOf(turn, known).values());
  return roster.every((persona) => present.has(persona));
}

function vote(persona: DemoPersona, turn: DemoTurn, known: DemoAnswers): DemoMove {
  const authors = authorsOf(turn, known);
  const pick = (who: DemoPersona) => turn.votable.find((id) => authors.get(id) === who);
  const favourite = PREFERENCE.find((who) => pick(who) !== undefined);
  const agentId = (favourite && pick(favourite)) ?? (turn.votable[0] as string);
  const reason = favourite ? REASONS[favourite] : 'the best answer in view';
  const say =
    persona === 'grace'
      ? 'Checked again: mine holds. '
      : persona === 'ada'
        ? 'Comparing the answers… '
        : favourite === 'linus'
          ? 'Nobody else has answered yet. '
          : 'Reading the others… I rushed mine. ';
  return { kind: 'vote', say, agentId, reason };
}

const ANSWER_SAY: Record<DemoPersona, string> = {
  ada: 'Working it out… ',
  grace: 'Working through it carefully… ',
  linus: 'Easy — answering right away. ',
};

/**
 * The script: what `persona` does with `turn`, whose question's answers are `known`. In coordination an
 * agent with no answer in view submits its first one; Grace, once, revises hers; everyone else votes
 * for the best answer in view. A presenter presents its winning answer, a lone agent answers directly,
 * a judge picks Grace's answer and a final check accepts.
 */
export function demoMove(persona: DemoPersona, turn: DemoTurn, known: DemoAnswers): DemoMove {
  const mine = answersOf(persona, known);
  if (turn.tools.includes('pick_answer')) {
    const authors = authorsOf(turn, known);
    const best = PREFERENCE.map((who) => [...authors].find(([, a]) => a === who)?.[0]).find(Boolean);
    return {
      kind: 'call',
      say: 'Judging the candidates… ',
      name: 'pick_answer',
      input: { agent_id: best ?? turn.votable[0] ?? 'agent1', reason: 'the most complete answer' },
    };
  }
  if (turn.tools.includes('accept_answer'))
    return { kind: 'call', say: 'It answers the question. ', name: 'accept_answer', input: {} };
  if (turn.tools.includes('classify_tools'))
    return { kind: 'call', say: '', name: 'classify_tools', input: { read_only_tools: [] } };
  if (turn.tools.includes('new_answer') || turn.tools.includes('vote')) {
    const canAnswer = turn.tools.includes('new_answer') && !turn.tried.includes('new_answer');
    const shown = [...turn.answers.values()].map((content) => content.trim());
    const latest = mine.findLastIndex((text) => shown.includes(text));
    if (canAnswer && latest === -1)
      return { kind: 'answer', say: ANSWER_SAY[persona], content: mine[0] as string };
    if (canAnswer && latest + 1 < mine.length)
      return {
        kind: 'answer',
        say: 'Reading the other answers, then double-checking mine… ',
        content: mine[latest + 1] as string,
        revises: mine[latest] as string,
      };
    if (turn.votable.length > 0) return vote(persona, turn, known);
    return { kind: 'answer', say: ANSWER_SAY[persona], content: mine.at(-1) as string };
  }
  if (turn.tools.length > 0)
    return {
      kind: 'text',
      text: 'The scripted demo team only plays the voting protocol (new_answer, vote); this step needs a real model.',
    };
  return { kind: 'text', text: `${turn.ownFinal ?? (mine.at(-1) as string)}\n\n${SCRIPTED_NOTE}` };
}
