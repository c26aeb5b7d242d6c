import { z } from 'zod';

/**
 * Steering: the user's part of the run event stream (docs/events.md, docs/protocol.md "Steering").
 * A message the run accepted (`human.message`), each delivery of it into an agent's conversation
 * (`human.message.delivered`), and "answer now" (`coordination.answer_now`). Joined into
 * `RunEventSchema` in events.ts, so a logged run replays its messages where they happened.
 */

const base = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  ts: z.number(),
};
const agentBase = { ...base, agentId: z.string() };

/** Where a steering message or "answer now" came from. */
export const SteeringSourceSchema = z.enum(['web', 'terminal', 'inbox', 'api', 'hook']);
export type SteeringSource = z.infer<typeof SteeringSourceSchema>;

/** The longest message a run accepts, in characters (after trimming). */
export const MAX_STEERING_TEXT_LENGTH = 4000;

/** The run accepted a message from the user: every agent (or `target`) reads it at its next step. */
export const HumanMessageSchema = z.object({
  ...base,
  type: z.literal('human.message'),
  text: z.string(),
  /** The agent id the message is for, or null for every agent. */
  target: z.string().nullable(),
  source: SteeringSourceSchema,
});

/** A message reached one agent: it is in that agent's next request (the seq of its `human.message`). */
export const HumanMessageDeliveredSchema = z.object({
  ...agentBase,
  type: z.literal('human.message.delivered'),
  messageSeq: z.number().int().nonnegative(),
});

/** "Answer now": coordination stops and the best current answer is presented. */
export const AnswerNowSchema = z.object({
  ...base,
  type: z.literal('coordination.answer_now'),
  source: SteeringSourceSchema,
});

export const steeringEventSchemas = [
  HumanMessageSchema,
  HumanMessageDeliveredSchema,
  AnswerNowSchema,
] as const;

/** A message for a running run: `steer()` on the run's handle. */
export interface SteeringMessage {
  /** 1 to {@link MAX_STEERING_TEXT_LENGTH} characters (trimmed). */
  text: string;
  /** One agent's id; omitted: every agent. */
  agentId?: string;
  /** Default `api`. */
  source?: SteeringSource;
}

/** Why a run did not take a message or "answer now". */
export type SteeringRefusal =
  /** The run has not started yet, or has finished. */
  | 'not_running'
  /** The text is empty or longer than {@link MAX_STEERING_TEXT_LENGTH}. */
  | 'invalid_text'
  /** No agent of the run has that id (the message names the known ids). */
  | 'unknown_agent'
  /** The agent was dropped from the run: it takes no more steps. */
  | 'agent_dropped'
  /** Answer now: coordination is not running (already presenting, a single agent, step mode). */
  | 'not_coordinating'
  /** Answer now: no agent has answered yet, so there is nothing to present. */
  | 'no_answer';

export type SteerResult =
  { accepted: true; seq: number } | { accepted: false; reason: SteeringRefusal; message: string };

export type AnswerNowResult =
  { accepted: true } | { accepted: false; reason: SteeringRefusal; message: string };
