import {
  HOOK_EVENTS,
  type CommandHookConfig,
  type HookEvent,
  type HooksConfig,
} from '../config/hooks-schema.js';
import { ConfigError } from '../types/errors.js';

/**
 * The hooks of one run, flattened: each command with the label that names it in warnings and in the
 * permissions ledger, and its compiled matcher. Matchers are Claude Code's: a regular expression over
 * the whole tool name, `*` or empty for every tool — and Claude Code's tool names (`Bash`, `Read`,
 * `Write`, `Edit`) match massgen's tools that do the same, so existing hooks work unchanged.
 */

export interface HookEntry {
  /** `hooks.PreToolUse[0].hooks[1]`, `agents[0].hooks…`, `.massgen/hooks/guard.json: PreToolUse[0]…`. */
  label: string;
  /** Null: every tool. */
  matcher: RegExp | null;
  hook: CommandHookConfig;
}

export type HookSet = Record<HookEvent, HookEntry[]>;

/** Claude Code's names of the tools massgen has under other names. */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  execute_command: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  edit_file: 'Edit',
  list_directory: 'LS',
};

export const emptyHookSet = (): HookSet => ({
  PreToolUse: [],
  PostToolUse: [],
  UserPromptSubmit: [],
  Stop: [],
});

/** Whether `entry` is for `toolName` (null: an event without a tool, which every entry is for). */
export function matches(entry: HookEntry, toolName: string | null): boolean {
  if (entry.matcher === null || toolName === null) return true;
  const alias = CLAUDE_NAMES[toolName];
  return entry.matcher.test(toolName) || (alias !== undefined && entry.matcher.test(alias));
}

/**
 * The entries of one `hooks:` block, labelled from `prefix` (`hooks`, `agents[1].hooks`).
 * @throws {ConfigError} for a matcher that is not a regular expression, naming it.
 */
export function hookSetOf(config: HooksConfig | undefined, prefix: string): HookSet {
  const set = emptyHookSet();
  if (!config) return set;
  for (const event of HOOK_EVENTS) {
    (config[event] ?? []).forEach((group, g) => {
      const matcher = compile(group.matcher, `${prefix}.${event}[${g}].matcher`);
      group.hooks.forEach((hook, h) =>
        set[event].push({ label: `${prefix}.${event}[${g}].hooks[${h}]`, matcher, hook }),
      );
    });
  }
  return set;
}

/** The entries of several sets, in order (the team's, then an agent's, then the project's). */
export function joinHookSets(...sets: readonly HookSet[]): HookSet {
  const joined = emptyHookSet();
  for (const set of sets) for (const event of HOOK_EVENTS) joined[event].push(...set[event]);
  return joined;
}

export const hasHooks = (set: HookSet, events: readonly HookEvent[] = HOOK_EVENTS): boolean =>
  events.some((event) => set[event].length > 0);

function compile(matcher: string | undefined, key: string): RegExp | null {
  if (matcher === undefined || matcher === '' || matcher === '*') return null;
  try {
    return new RegExp(`^(?:${matcher})$`);
  } catch (error) {
    throw new ConfigError(`${key}: "${matcher}" is not a regular expression (${(error as Error).message})`, {
      path: key,
      hint: 'write a tool name (execute_command, Bash), several with | (Write|Edit), or * for every tool',
    });
  }
}
