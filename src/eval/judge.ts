import path from 'node:path';
import { buildAgentSpecs, prepareBackends, type Env } from '../app/build-agents.js';
import { isExampleRef, resolveExampleRef } from '../app/essentials.js';
import { loadConfigFile, type MassGenConfig } from '../config/index.js';
import type { Backend } from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import { addUsage, emptyUsage, type TokenUsage } from '../types/usage.js';
import type { EvalItem } from './dataset.js';
import { normalizeText, type Scorer, type Verdict } from './scorers.js';

/** The judge's instructions (the system message of every grading call; printed in the report). */
export const JUDGE_RUBRIC = `You are grading an answer to a question against the reference answer.
Rubric:
- CORRECT: the answer's final conclusion means the same as the reference (wording, formatting, units
  written differently and extra explanation do not matter).
- INCORRECT: it contradicts the reference, gives several conflicting conclusions, leaves the question
  unanswered, or is only partly right.
Judge only the final conclusion against the reference; do not solve the question yourself.
Reply with one short sentence of reasoning, then a last line that is exactly VERDICT: CORRECT or
VERDICT: INCORRECT.`;

/** The user message of a grading call. */
export function judgePrompt(item: Pick<EvalItem, 'prompt' | 'answer'>, answer: string): string {
  return `Question:\n${item.prompt}\n\nReference answer:\n${item.answer}\n\nAnswer to grade:\n${answer}`;
}

/** The verdict in a judge's reply: its last `VERDICT:` line; null when it gave none. */
export function parseVerdict(reply: string): boolean | null {
  const found = [...reply.matchAll(/VERDICT:\s*\**\s*(CORRECT|INCORRECT)/gi)].at(-1);
  if (found) return (found[1] as string).toUpperCase() === 'CORRECT';
  const bare = reply.trim().toUpperCase();
  return bare === 'CORRECT' ? true : bare === 'INCORRECT' ? false : null;
}

/** Options of {@link createJudgeScorer}. */
export interface JudgeOptions {
  /** The config holding the judge's model: a path or `@examples/NAME`. */
  config: string;
  /** The agent of that config whose backend grades (default: its first). */
  agentId?: string;
  cwd: string;
  env: Env;
  signal?: AbortSignal;
}

/** A judge scorer, and the tokens its calls used so far. */
export interface JudgeScorer extends Scorer {
  readonly model: string;
  usage(): TokenUsage;
  calls(): number;
  close(): Promise<void>;
}

/** One model call, no tools: the text of the reply and its usage. */
async function ask(
  backend: Backend,
  user: string,
  signal: AbortSignal,
): Promise<{ text: string; usage: TokenUsage }> {
  let text = '';
  let usage = emptyUsage();
  const messages = [
    { role: 'system' as const, content: JUDGE_RUBRIC },
    { role: 'user' as const, content: user },
  ];
  for await (const part of backend.stream({ messages, tools: [], toolChoice: 'none', signal })) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'finish') usage = part.usage;
  }
  return { text, usage };
}

/**
 * `--scorer judge`: a model grades each answer against the reference with {@link JUDGE_RUBRIC} — one
 * model call per distinct answer of a question, through the same backends as the agents. A reply
 * without a verdict counts as incorrect (its text is kept as the reason).
 */
export async function createJudgeScorer(options: JudgeOptions): Promise<JudgeScorer> {
  const file = isExampleRef(options.config)
    ? resolveExampleRef(options.config)
    : path.resolve(options.cwd, options.config);
  const config = loadConfigFile(file, { env: options.env, cwd: options.cwd });
  const agent = options.agentId ? config.agents.find((a) => a.id === options.agentId) : config.agents[0];
  if (!agent)
    throw new ConfigError(`${options.config}: no agent "${options.agentId}" to judge with`, {
      hint: `--judge-agent takes one of: ${config.agents.map((a) => a.id).join(', ')}`,
    });
  const judgeConfig: MassGenConfig = { ...config, agents: [agent] };
  await prepareBackends(judgeConfig, options.env, options.signal ? { signal: options.signal } : {});
  const [spec] = buildAgentSpecs(judgeConfig, options.env);
  const backend = (spec as NonNullable<typeof spec>).backend;
  const signal = options.signal ?? new AbortController().signal;
  let usage = emptyUsage();
  let calls = 0;
  // One grading per distinct answer of a question (team and agents often say the same).
  const cache = new Map<string, Promise<Verdict>>();
  const grade = async (answer: string, item: EvalItem): Promise<Verdict> => {
    const reply = await ask(backend, judgePrompt(item, answer), signal);
    calls++;
    usage = addUsage(usage, reply.usage);
    const verdict = parseVerdict(reply.text);
    return {
      correct: verdict === true,
      extracted: verdict === null ? 'no verdict' : verdict ? 'CORRECT' : 'INCORRECT',
      reason: reply.text.trim(),
    };
  };
  return {
    name: 'judge',
    model: `${agent.backend.type}:${backend.model}`,
    key: (answer) => (answer === null ? null : normalizeText(answer) || null),
    score(answer, item) {
      if (answer === null) return Promise.resolve({ correct: false, extracted: null });
      const key = `${item.id}\u0000${answer}`;
      let verdict = cache.get(key);
      if (!verdict) cache.set(key, (verdict = grade(answer, item)));
      return verdict;
    },
    usage: () => usage,
    calls: () => calls,
    close: async () => {
      await backend.close?.();
    },
  };
}
