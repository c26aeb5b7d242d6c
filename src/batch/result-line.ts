import { z } from 'zod';
import { ErrorInfoSchema, RunStatusSchema, type ErrorInfo, type RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import type { TokenUsage } from '../types/usage.js';

/** Token counts of a whole run (every agent, every call). `input` includes `cached_input`. */
export const BatchTokensSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  reasoning: z.number().int().nonnegative(),
  cached_input: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});
export type BatchTokens = z.infer<typeof BatchTokensSchema>;

/** What a run came to, wherever it ran: the part of a result line the run itself decides. */
export const RunOutcomeSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  answer: z.string().nullable(),
  winner: z.string().nullable(),
  /** Votes per agent id at the end of coordination (agents with none are left out). */
  votes: z.record(z.string(), z.number()),
  tokens: BatchTokensSchema,
  /** Dollars, summed over agents; with `cost_known` false, only what is known (models with a price). */
  cost_usd: z.number().nonnegative(),
  /**
   * False when some of the run's cost is unknown: a model without a known price, or attempts on
   * queue workers that failed. Lines written before this key existed read as true.
   */
  cost_known: z.boolean().default(true),
  duration_ms: z.number().nonnegative(),
  /** The run's log folder, on the machine it ran on; null with logging off. */
  log_dir: z.string().nullable(),
  /** `host:pid` of the queue worker that ran it; null in-process. */
  worker: z.string().nullable(),
  error: ErrorInfoSchema.nullable(),
});
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

/** A line that did not answer: it holds an error, or its run did not complete (failed, timed out). */
export const lineFailed = (line: { error?: unknown; status?: unknown }): boolean =>
  (line.error !== null && line.error !== undefined) || line.status !== 'completed';

/** One line of a batch's output file. */
export const BatchResultLineSchema = z.object({
  id: z.string(),
  question: z.string(),
  ...RunOutcomeSchema.shape,
  /** When the line was written (ISO 8601). */
  finished_at: z.string(),
});
export type BatchResultLine = z.infer<typeof BatchResultLineSchema>;

export const noTokens = (): BatchTokens => ({ input: 0, output: 0, reasoning: 0, cached_input: 0, total: 0 });

function tokensOf(usage: Readonly<Record<string, TokenUsage>>): BatchTokens {
  const tokens = noTokens();
  for (const u of Object.values(usage)) {
    tokens.input += u.inputTokens;
    tokens.output += u.outputTokens;
    tokens.reasoning += u.reasoningTokens;
    tokens.cached_input += u.cachedInputTokens;
  }
  tokens.total = tokens.input + tokens.output;
  return tokens;
}

/** A run's result as an outcome, with what only its events told (final tallies, dollars). */
export function outcomeFrom(
  result: RunResult,
  facts: { votes: Record<string, number>; costUsd: number; costKnown?: boolean; worker: string | null },
): RunOutcome {
  return {
    run_id: result.runId,
    status: result.status,
    answer: result.finalAnswer,
    winner: result.winnerId,
    votes: facts.votes,
    tokens: tokensOf(result.usage),
    cost_usd: facts.costUsd,
    cost_known: facts.costKnown ?? true,
    duration_ms: result.durationMs,
    log_dir: result.logDir,
    worker: facts.worker,
    error: result.error ?? null,
  };
}

/**
 * Follows a run's events for what its result does not hold (the final tallies, the cost and whether
 * every agent's model has a known price). Feed it every event (`onEvent`), then turn the result into
 * an outcome.
 */
export function trackOutcome(worker: string | null = null) {
  let votes: Record<string, number> = {};
  let costUsd = 0;
  let costKnown = true;
  return {
    onEvent(event: RunEvent): void {
      if (event.type === 'run.started') costKnown = event.agents.every((agent) => Boolean(agent.price));
      if (event.type === 'coordination.finished') votes = { ...event.tallies };
      if (event.type === 'run.finished') costUsd = Object.values(event.costUsd).reduce((a, b) => a + b, 0);
    },
    facts: () => ({ votes, costUsd, costKnown }),
    outcome: (result: RunResult): RunOutcome => outcomeFrom(result, { votes, costUsd, costKnown, worker }),
  };
}

/**
 * The outcome of a question without a result: it never ran (an unreadable attachment), or — with
 * `costKnown` false — it ran and failed where its cost was not counted (a job out of retries).
 */
export function failedOutcome(error: ErrorInfo, worker: string | null = null, costKnown = true): RunOutcome {
  return {
    run_id: '',
    status: 'failed',
    answer: null,
    winner: null,
    votes: {},
    tokens: noTokens(),
    cost_usd: 0,
    cost_known: costKnown,
    duration_ms: 0,
    log_dir: null,
    worker,
    error,
  };
}
