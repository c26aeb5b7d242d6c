import { z } from 'zod';
import type { HookEvent } from '../config/hooks-schema.js';
import { isRecord } from '../util/guards.js';

/**
 * What one hook's run means, read the way Claude Code reads it (docs/hooks.md): exit code 0 with an
 * optional JSON object on stdout, exit code 2 to block with stderr as the reason, anything else a
 * non-blocking failure. MassGen's answer keys (`decision: deny`, `updated_input`, `inject`) are read
 * too. Pure: the runner hands in what the process did.
 */

/** How one hook process ended, as the runner saw it. */
export interface HookRun {
  exitCode: number | null;
  /** Stdout, cut by the runner to a bound (a cut one says so in `stdoutBytes`). */
  stdout: string;
  stdoutBytes: number;
  stderr: string;
  timedOut: boolean;
  timeoutSeconds: number;
  /** Why the program could not start. */
  startError: string | null;
}

/** One hook's answer. */
export interface HookAnswer {
  decision: 'allow' | 'ask' | 'deny' | 'block' | null;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  /** Set when the hook failed: one line saying how; the answer then decides nothing. */
  warning?: string;
}

/** The most a hook's stdout may hold to be read at all (Claude Code's answers are a few hundred bytes). */
export const MAX_HOOK_STDOUT_BYTES = 64 * 1024;
/** Reasons and added context are cut to this many characters, with a note: they go to a model. */
export const MAX_HOOK_TEXT_CHARS = 8_000;

const text = z.string().optional().catch(undefined);
/** The answer's keys massgen reads; anything else in it is ignored, as Claude Code does. */
const AnswerSchema = z.looseObject({
  decision: z.enum(['approve', 'block', 'allow', 'deny', 'ask']).optional().catch(undefined),
  reason: text,
  updated_input: z.unknown().optional(),
  inject: z.looseObject({ content: text }).optional().catch(undefined),
  hookSpecificOutput: z
    .looseObject({
      permissionDecision: z.enum(['allow', 'deny', 'ask']).optional().catch(undefined),
      permissionDecisionReason: text,
      updatedInput: z.unknown().optional(),
      additionalContext: text,
    })
    .optional()
    .catch(undefined),
});

/** Text for a model or a ledger: cut to {@link MAX_HOOK_TEXT_CHARS}, saying how much was left out. */
export function boundedText(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length <= MAX_HOOK_TEXT_CHARS) return trimmed;
  return `${trimmed.slice(0, MAX_HOOK_TEXT_CHARS)}\n[cut: ${trimmed.length - MAX_HOOK_TEXT_CHARS} more characters]`;
}

const firstLine = (value: string) => value.trim().split('\n')[0]!.slice(0, 200);

/** Reads one hook's run for `event`; `label` names it in warnings (`hooks.PreToolUse[0].hooks[0]`). */
export function readHookAnswer(event: HookEvent, label: string, run: HookRun): HookAnswer {
  if (run.startError !== null)
    return { decision: null, warning: `${label} could not start: ${run.startError}` };
  if (run.timedOut)
    return {
      decision: null,
      warning: `${label} was stopped after its timeout of ${run.timeoutSeconds} s (set "timeout:" to give it longer); the call went on without it`,
    };
  if (run.exitCode === 2) {
    // Blocking: stderr is the reason the model (or the user, for a prompt) reads.
    const reason = boundedText(run.stderr) || `${label} exited with code 2`;
    return { decision: event === 'PreToolUse' ? 'deny' : 'block', reason };
  }
  if (run.exitCode !== 0) {
    const said = firstLine(run.stderr);
    return {
      decision: null,
      warning: `${label} failed (exit code ${run.exitCode ?? 'none: killed by a signal'})${said ? `: ${said}` : ''}; the call went on without it`,
    };
  }
  return readStdout(event, label, run);
}

function readStdout(event: HookEvent, label: string, run: HookRun): HookAnswer {
  const stdout = run.stdout.trim();
  if (run.stdoutBytes > MAX_HOOK_STDOUT_BYTES)
    return {
      decision: null,
      warning: `${label} printed ${run.stdoutBytes} bytes; an answer may be at most ${MAX_HOOK_STDOUT_BYTES}: ignored`,
    };
  if (!stdout.startsWith('{')) {
    // Plain text: Claude Code adds it to the context for a prompt, and only logs it otherwise.
    return event === 'UserPromptSubmit' && stdout !== ''
      ? { decision: null, additionalContext: boundedText(stdout) }
      : { decision: null };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch (error) {
    return {
      decision: null,
      warning: `${label} printed malformed JSON (${firstLine((error as Error).message)}): ignored`,
    };
  }
  const answer = AnswerSchema.safeParse(parsed);
  if (!answer.success)
    return { decision: null, warning: `${label} printed JSON that is not an object: ignored` };
  return fromJson(label, answer.data);
}

function fromJson(label: string, data: z.output<typeof AnswerSchema>): HookAnswer {
  const specific = data.hookSpecificOutput;
  const decision =
    specific?.permissionDecision ??
    (data.decision === 'approve' ? 'allow' : data.decision === undefined ? null : data.decision);
  const reason = specific?.permissionDecisionReason ?? data.reason;
  const context = [specific?.additionalContext, data.inject?.content].filter(
    (s): s is string => typeof s === 'string' && s.trim() !== '',
  );
  const input = specific?.updatedInput ?? data.updated_input;
  const answer: HookAnswer = { decision };
  if (reason !== undefined && reason.trim() !== '') answer.reason = boundedText(reason);
  if (context.length > 0) answer.additionalContext = boundedText(context.join('\n'));
  if (input !== undefined) {
    if (isRecord(input) && !Array.isArray(input)) answer.updatedInput = input;
    else answer.warning = `${label} gave an updatedInput that is not an object: ignored`;
  }
  return answer;
}
