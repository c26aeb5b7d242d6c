import { z } from 'zod';
import { agentBase, ErrorInfoSchema, PhaseSchema } from './event-base.js';
import { TokenUsageSchema } from './usage.js';

/**
 * One agent's model calls as they stream (docs/events.md): each step's start, its text and reasoning
 * deltas, its end with usage and cost, a retry after a failed attempt, and the context trimmed or
 * compressed to fit the model's window. Joined into `RunEventSchema` in events.ts.
 */

export const StepStartedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.step.started'),
  phase: PhaseSchema,
  step: z.number().int().positive(),
});

const textKind = z.enum(['text', 'reasoning']);
export const TextStartSchema = z.object({
  ...agentBase,
  type: z.literal('agent.text.start'),
  phase: PhaseSchema,
  kind: textKind,
});
export const TextDeltaSchema = z.object({
  ...agentBase,
  type: z.literal('agent.text.delta'),
  phase: PhaseSchema,
  kind: textKind,
  text: z.string(),
});
export const TextEndSchema = z.object({
  ...agentBase,
  type: z.literal('agent.text.end'),
  phase: PhaseSchema,
  kind: textKind,
});

export const StepFinishedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.step.finished'),
  phase: PhaseSchema,
  step: z.number().int().positive(),
  finishReason: z.string(),
  usage: TokenUsageSchema,
  /** Dollars this call cost (0 when the model has no known price). */
  costUsd: z.number().nonnegative(),
});

export const StepRetryingSchema = z.object({
  ...agentBase,
  type: z.literal('agent.step.retrying'),
  phase: PhaseSchema,
  attempt: z.number().int().positive(),
  delayMs: z.number().nonnegative(),
  error: ErrorInfoSchema,
  /** The provider answered before this attempt failed (an HTTP status, a response cut short). */
  responded: z.boolean().optional(),
});

/** A request was trimmed to fit the model's context window (old tool results, then peers' answers). */
export const ContextTrimmedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.context.trimmed'),
  contextWindow: z.number().int().positive(),
  /** Estimated prompt tokens before and after the trim. */
  beforeTokens: z.number().int().nonnegative(),
  afterTokens: z.number().int().nonnegative(),
});

/**
 * An agent's older steps were summarised by a model to make room (`memory.compression`): before a
 * request passed the trigger share of the window, or after the provider refused one as too long.
 */
export const ContextCompressedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.context.compressed'),
  reason: z.enum(['threshold', 'provider_error']),
  /** The model's window in tokens; absent when unknown (compressed after a provider's refusal). */
  contextWindow: z.number().int().positive().optional(),
  /** Messages folded into the summary. */
  summarisedMessages: z.number().int().nonnegative(),
  /** Estimated prompt tokens before and after, and what that saved. */
  beforeTokens: z.number().int().nonnegative(),
  afterTokens: z.number().int().nonnegative(),
  savedTokens: z.number().int().nonnegative(),
  /** The model that wrote the summary. */
  model: z.string(),
});

export const modelStepEventSchemas = [
  StepStartedSchema,
  TextStartSchema,
  TextDeltaSchema,
  TextEndSchema,
  StepFinishedSchema,
  StepRetryingSchema,
  ContextTrimmedSchema,
  ContextCompressedSchema,
] as const;
