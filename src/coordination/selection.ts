import { describeError } from '../types/errors.js';
import { oneOffCall } from './one-off-call.js';
import { ACCEPT_ANSWER, finalCheckPrompt, judgePrompt, REQUEST_RESTART } from './prompts.js';
import type { RunContext } from './run-context.js';
import { asObject } from './workflow-tools.js';

/**
 * `selection: judge`: one agent (`judge`, else the first active agent) reads every current answer
 * anonymously and picks the best with `pick_answer`. Returns the chosen agent's index, or null when
 * the judge failed or picked nothing valid (the vote winner stands).
 */
export async function judgeWinner(ctx: RunContext, signal: AbortSignal): Promise<number | null> {
  const { state, settings } = ctx;
  const candidates = state.currentAnswers();
  if (candidates.length < 2) return null;
  const judge =
    (settings.judgeAgentId === null
      ? undefined
      : state.active().find((a) => a.spec.id === settings.judgeAgentId)) ?? state.active()[0];
  if (!judge) return null;
  const { system, user, tool } = judgePrompt(
    ctx.question,
    candidates.map((a) => ({ anonymousId: state.agent(a.agentIndex).anonymousId, content: a.content })),
  );
  try {
    const { call } = await oneOffCall(
      ctx,
      judge.index,
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        tools: [tool],
      },
      signal,
    );
    const args = asObject(call?.arguments) ?? {};
    const picked = typeof args['agent_id'] === 'string' ? args['agent_id'] : '';
    const index = state.indexOfAnonymousId(picked);
    const valid = index !== undefined && candidates.some((a) => a.agentIndex === index);
    ctx.emit({
      type: 'selection.judged',
      agentId: judge.spec.id,
      winnerId: valid ? state.agent(index).spec.id : null,
      reason: valid ? String(args['reason'] ?? '') : `no valid pick (${picked || 'none'})`,
    });
    return valid ? index : null;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    ctx.emit({
      type: 'selection.judged',
      agentId: judge.spec.id,
      winnerId: null,
      reason: describeError(error),
    });
    return null;
  }
}

/** The winner's verdict on the final answer. */
export type FinalCheck = { accepted: true } | { accepted: false; reason: string; instructions: string };

/**
 * `max_orchestration_restarts`: the winner checks the final answer against the question and accepts
 * it or sends the team back with reasons and instructions. A failed check accepts (the answer stands).
 */
export async function checkFinalAnswer(
  ctx: RunContext,
  winnerIndex: number,
  finalAnswer: string,
  restartsLeft: number,
  signal: AbortSignal,
): Promise<FinalCheck> {
  const winner = ctx.state.agent(winnerIndex);
  const { system, user, tools } = finalCheckPrompt(ctx.question, finalAnswer, restartsLeft);
  let verdict: FinalCheck = { accepted: true };
  try {
    const { call } = await oneOffCall(
      ctx,
      winnerIndex,
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        tools,
      },
      signal,
    );
    if (call?.name === REQUEST_RESTART) {
      const args = asObject(call.arguments) ?? {};
      verdict = {
        accepted: false,
        reason: String(args['reason'] ?? '').trim() || 'no reason given',
        instructions: String(args['instructions'] ?? '').trim() || 'try again',
      };
    } else if (call?.name !== ACCEPT_ANSWER) {
      verdict = { accepted: true };
    }
  } catch {
    if (signal.aborted) throw signal.reason;
  }
  ctx.emit({
    type: 'orchestration.checked',
    agentId: winner.spec.id,
    accepted: verdict.accepted,
    ...(verdict.accepted ? {} : { reason: verdict.reason, instructions: verdict.instructions }),
  });
  return verdict;
}
