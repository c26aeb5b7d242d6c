import { z } from 'zod';

/** The fields every run event carries (events.ts stamps them), and the phase of an agent's work. */
export const base = {
  runId: z.string(),
  /** Monotonic per run, starting at 0. */
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the epoch. */
  ts: z.number(),
};
export const agentBase = { ...base, agentId: z.string() };

export const PhaseSchema = z.enum(['coordination', 'presentation']);
export type Phase = z.infer<typeof PhaseSchema>;

export const ErrorInfoSchema = z.object({ code: z.string(), message: z.string() });
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;
