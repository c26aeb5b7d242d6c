import { z } from 'zod';
import { RunStatusSchema } from '../types/events.js';
import type { TokenUsage } from '../types/usage.js';
import { roundCost, toSnakeUsage, type SnakeUsage } from './snake-usage.js';

/**
 * The on-disk shapes of a session folder (`session.json`, `turn_<n>/metadata.json`), snake_case like
 * the run logs. Read back through these zod schemas, so a hand-edited or truncated file is reported
 * instead of trusted. Unknown extra keys are accepted (newer versions may add some).
 */

/** File and folder names inside a session folder. */
export const SESSION_FILES = {
  session: 'session.json',
  summary: 'summary.md',
  turnMetadata: 'metadata.json',
  answer: 'answer.txt',
  workspace: 'workspace',
} as const;

/** `turn_<n>` folder names; `n` starts at 1. */
export const TURN_DIR = /^turn_([1-9]\d*)$/;
export const turnDirName = (index: number): string => `turn_${index}`;

const SnakeUsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  reasoning_tokens: z.number().int().nonnegative(),
  cached_input_tokens: z.number().int().nonnegative(),
});

const isoDate = z.string().refine((text) => !Number.isNaN(Date.parse(text)), {
  error: 'must be an ISO date',
});

export const SessionAgentSchema = z.object({
  id: z.string(),
  backend: z.string(),
  model: z.string(),
});

export const SessionDocumentSchema = z.object({
  id: z.string().min(1),
  created_at: isoDate,
  updated_at: isoDate,
  config_source: z.string(),
  agents: z.array(SessionAgentSchema).default([]),
  turn_count: z.number().int().nonnegative(),
});
export type SessionDocument = z.output<typeof SessionDocumentSchema>;

const AgentTotalsSchema = z.object({ usage: SnakeUsageSchema, cost_usd: z.number().nonnegative() });

export const TurnMetadataSchema = z.object({
  turn: z.number().int().positive(),
  question: z.string(),
  status: RunStatusSchema,
  exit_code: z.number().int(),
  winner: z.string().nullable(),
  winner_label: z.string().nullable(),
  /** `answer.txt` when the turn has a final answer, else null. */
  answer_file: z.string().nullable(),
  run_id: z.string().nullable().default(null),
  started_at: isoDate,
  finished_at: isoDate,
  duration_seconds: z.number().nonnegative(),
  agents: z.record(z.string(), AgentTotalsSchema),
  totals: AgentTotalsSchema,
  log_dir: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable().default(null),
  /** `workspace` when the winner's workspace was copied into the turn folder, else null. */
  workspace: z.string().nullable().default(null),
  /**
   * True from the turn's start until it is finished: a turn whose process was killed stays so (its
   * status then says `failed`, its error `unfinished`), and `--continue` picks up from its log folder.
   */
  unfinished: z.boolean().default(false),
  /** The process running an unfinished turn: one still alive on this host keeps its subagents. */
  process: z.object({ pid: z.number().int().positive(), hostname: z.string() }).nullable().default(null),
});
export type TurnMetadataDocument = z.output<typeof TurnMetadataSchema>;

/** Camel-case usage from the snake-case file shape. */
export function fromSnakeUsage(usage: SnakeUsage): TokenUsage {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.reasoning_tokens,
    cachedInputTokens: usage.cached_input_tokens,
  };
}

/** Per-agent usage and cost, and their totals, as written to `metadata.json`. */
export function agentTotalsDocument(
  usage: Readonly<Record<string, TokenUsage>>,
  costUsd: Readonly<Record<string, number>>,
): Pick<TurnMetadataDocument, 'agents' | 'totals'> {
  const ids = [...new Set([...Object.keys(usage), ...Object.keys(costUsd)])];
  const zero: TokenUsage = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0 };
  const total = { ...zero };
  let totalCost = 0;
  const agents: TurnMetadataDocument['agents'] = {};
  for (const id of ids) {
    const u = usage[id] ?? zero;
    const cost = costUsd[id] ?? 0;
    total.inputTokens += u.inputTokens;
    total.outputTokens += u.outputTokens;
    total.reasoningTokens += u.reasoningTokens;
    total.cachedInputTokens += u.cachedInputTokens;
    totalCost += cost;
    agents[id] = { usage: toSnakeUsage(u), cost_usd: roundCost(cost) };
  }
  return { agents, totals: { usage: toSnakeUsage(total), cost_usd: roundCost(totalCost) } };
}

/** Zod issues as one short line: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ');
}
