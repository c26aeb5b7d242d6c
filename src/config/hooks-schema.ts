import { z } from 'zod';

/**
 * `hooks:` — the user's commands around tool calls and the run, in Claude Code's settings format
 * (docs/hooks.md), team-wide at the top level and per agent (`agents[].hooks`, run besides the
 * team's). Joined into the config schema in schema.ts; MassGen's own form (`handler:`) is rewritten
 * into this one by the compat pass (massgen-compat-hooks.ts).
 */

/** The events massgen fires, with Claude Code's names. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's default: a hook still running after a minute is stopped. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** One command, run with the event as JSON on its stdin. */
export const CommandHookSchema = z.strictObject({
  type: z.literal('command', { error: 'only "command" hooks are supported (type: command)' }),
  /** A shell command line (`sh -c`), written by the config's author; never built from a tool call. */
  command: z.string().min(1, { error: 'must not be empty' }),
  /** Seconds before the hook and everything it started are stopped. Default 60. */
  timeout: z.number().positive().max(3600).optional(),
  /**
   * `false`: run unconfined on this machine. Default: in the OS sandbox (the machine read-only, home
   * hidden, no network), like `execute_command`.
   */
  sandbox: z.boolean().optional(),
});
export type CommandHookConfig = z.output<typeof CommandHookSchema>;

/** Hooks for the tools whose names `matcher` matches (a regular expression; empty or `*`: every tool). */
const compiles = (pattern: string) => {
  try {
    new RegExp(pattern === '*' ? '' : pattern);
    return true;
  } catch {
    return false;
  }
};

export const HookMatcherSchema = z.strictObject({
  matcher: z
    .string()
    .refine(compiles, {
      error:
        'is not a regular expression: write a tool name (Bash, execute_command), several with | (Write|Edit), or * for every tool',
    })
    .optional(),
  hooks: z.array(CommandHookSchema).min(1, { error: 'must list at least one hook' }),
});
export type HookMatcherConfig = z.output<typeof HookMatcherSchema>;

/** `hooks:` — event name → matcher groups. */
export const HooksConfigSchema = z.strictObject({
  PreToolUse: z.array(HookMatcherSchema).optional(),
  PostToolUse: z.array(HookMatcherSchema).optional(),
  UserPromptSubmit: z.array(HookMatcherSchema).optional(),
  Stop: z.array(HookMatcherSchema).optional(),
});
export type HooksConfig = z.output<typeof HooksConfigSchema>;
