import { oneOffCall } from './one-off-call.js';
import { AUTO_PERSONAS, paraphrasePrompt } from './prompts.js';
import type { RunContext } from './run-context.js';

/**
 * `personas: auto`: agents that share a model with an earlier agent get distinct working styles, in
 * order, so a same-model team does not think alike. Agents with their own system message keep it and
 * still get a style; the first agent on each model gets none.
 */
export function assignPersonas(models: readonly string[]): (string | null)[] {
  const seen = new Map<string, number>();
  return models.map((model) => {
    const count = seen.get(model) ?? 0;
    seen.set(model, count + 1);
    return count === 0 ? null : (AUTO_PERSONAS[(count - 1) % AUTO_PERSONAS.length] ?? null);
  });
}

/**
 * `paraphrase: true`: every agent after the first asks its own model once, before coordination, to
 * restate the question in other words; it then reads both. Failures leave that agent without one.
 */
export async function paraphraseQuestion(ctx: RunContext, signal: AbortSignal): Promise<(string | null)[]> {
  return Promise.all(
    ctx.state.agents.map(async (agent) => {
      if (agent.index === 0) return null;
      const { system, user } = paraphrasePrompt(ctx.question);
      try {
        const { text } = await oneOffCall(
          ctx,
          agent.index,
          {
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: user },
            ],
          },
          signal,
        );
        if (text === '') return null;
        const paraphrase = ctx.scrub(text);
        ctx.emit({ type: 'agent.question.paraphrased', agentId: agent.spec.id, text: paraphrase });
        return paraphrase;
      } catch {
        if (signal.aborted) throw signal.reason;
        return null;
      }
    }),
  );
}
