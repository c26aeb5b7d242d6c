import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MassGenConfig } from '../config/index.js';
import { sandboxSupport } from '../tools/execute-command/index.js';
import { ConfigError } from '../types/errors.js';
import type { ToolHooks } from '../types/tool.js';
import { hasHooks, hookSetOf, joinHookSets, type HookEntry, type HookSet } from './hook-set.js';
import { loadProjectHooks, projectHookFiles } from './project-hooks.js';
import type { HookHost } from './run-hook.js';
import { createToolHooks, hookInput, runMatching } from './tool-hooks.js';

/**
 * Everything a run does with hooks (docs/hooks.md): the config's `hooks:` (team-wide and per agent)
 * and a trusted folder's `.massgen/hooks/*.json`, started from one host. `UserPromptSubmit` runs before
 * the first request and may refuse the question or add context; `Stop` runs once the run has
 * finished (it cannot keep a finished run going: its answer is only reported).
 */
export interface RunHooks {
  /** For the orchestrator; undefined when no agent has tool hooks. */
  toolHooks: ToolHooks | undefined;
  /** Lines for the run's start: what was left out and why. */
  notes: string[];
  /**
   * Runs the `UserPromptSubmit` hooks: `blocked` when one refused the question (the run must not
   * start), `context` to add to it, and warnings for the hooks that failed.
   */
  promptSubmitted(
    question: string,
    signal: AbortSignal,
  ): Promise<{ blocked?: string; context?: string; warnings: string[] }>;
  /**
   * Runs the `Stop` hooks with how the run would end (`stop_hook_active` among it): `block` when one
   * asked to keep going (every such hook named, their reasons joined), and warnings for the hooks
   * that failed.
   */
  stopped(
    ending: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ block?: { hook: string; reason: string }; warnings: string[] }>;
  /** Removes the hooks' scratch folder. */
  close(): void;
}

export interface RunHooksOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether the run's folder is trusted: its `.massgen/hooks/` is used only then. */
  projectTrusted: boolean;
  /** The `.env` files the run loaded: empty inside the hooks' sandbox. */
  envFiles: readonly string[];
}

const sessionIdFor = () => `hooks-${Date.now().toString(36)}`;

/**
 * The run's hooks, or null when it has none. Hooks that need the OS sandbox on a machine without one
 * stop the run here, before any request, naming the first such hook.
 * @throws {ConfigError} for a bad matcher, a bad `.massgen/hooks` file, or no sandbox.
 */
export function prepareRunHooks(config: MassGenConfig, options: RunHooksOptions): RunHooks | null {
  const notes: string[] = [];
  const files = projectHookFiles(options.cwd);
  let project = hookSetOf(undefined, '');
  if (files.length > 0 && options.projectTrusted) project = loadProjectHooks(options.cwd, files);
  else if (files.length > 0)
    notes.push(
      `not running the hooks of .massgen/hooks/ (${files.map((f) => path.basename(f)).join(', ')}): this folder is not trusted — review it with \`massgen trust\`, or pass --trust-project for this run`,
    );
  const team = joinHookSets(hookSetOf(config.hooks, 'hooks'), project);
  const own = config.agents.map((agent, i) => hookSetOf(agent.hooks, `agents[${i}].hooks`));
  const byAgent = new Map<string, HookSet>(
    config.agents.map((agent, i) => [agent.id, joinHookSets(team, own[i]!)]),
  );
  const all = joinHookSets(team, ...own);
  if (!hasHooks(all)) return notes.length > 0 ? withoutHooks(notes) : null;
  const support = sandboxSupport(options.env.PATH);
  const confined = [...all.PreToolUse, ...all.PostToolUse, ...all.UserPromptSubmit, ...all.Stop].find(
    (entry) => entry.hook.sandbox !== false,
  );
  if (confined && !support.ok)
    throw new ConfigError(`${confined.label}: runs in the OS sandbox, but ${support.reason}`, {
      path: confined.label,
      hint: `${support.hint}; or mark the hook sandbox: false to run it unconfined (docs/hooks.md)`,
    });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'massgen-hooks-'));
  const host: HookHost = {
    cwd: options.cwd,
    env: options.env,
    bwrap: support.ok ? support.bwrap : null,
    scratch,
    masked: options.envFiles,
  };
  const sessionId = sessionIdFor();
  const runEvent = (
    event: 'UserPromptSubmit' | 'Stop',
    entries: HookEntry[],
    fields: Record<string, unknown>,
    signal: AbortSignal,
  ) =>
    runMatching(
      event,
      entries,
      null,
      hookInput(event, sessionId, options.cwd, fields),
      { MASSGEN_HOOK_TYPE: event, MASSGEN_SESSION_ID: sessionId },
      host,
      signal,
    );
  const toolHooksUsed = config.agents.some((a) =>
    hasHooks(byAgent.get(a.id)!, ['PreToolUse', 'PostToolUse']),
  );
  return {
    toolHooks: toolHooksUsed ? createToolHooks((id) => byAgent.get(id) ?? team, host) : undefined,
    notes,
    async promptSubmitted(question, signal) {
      const answers = await runEvent('UserPromptSubmit', team.UserPromptSubmit, { prompt: question }, signal);
      const blocked = answers.find((a) => a.decision === 'block' || a.decision === 'deny');
      const context = answers.flatMap((a) => (a.additionalContext ? [a.additionalContext] : []));
      return {
        warnings: answers.flatMap((a) => (a.warning ? [a.warning] : [])),
        ...(blocked ? { blocked: `${blocked.label}: ${blocked.reason ?? 'refused the question'}` } : {}),
        ...(context.length > 0 ? { context: context.join('\n') } : {}),
      };
    },
    async stopped(ending, signal) {
      const answers = await runEvent('Stop', team.Stop, ending, signal);
      const blocks = answers.filter((a) => a.decision === 'block' || a.decision === 'deny');
      return {
        warnings: answers.flatMap((a) => (a.warning ? [a.warning] : [])),
        ...(blocks.length > 0
          ? {
              block: {
                hook: blocks.map((a) => a.label).join(', '),
                reason: blocks.map((a) => a.reason ?? 'no reason given').join('\n'),
              },
            }
          : {}),
      };
    },
    close: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

function withoutHooks(notes: string[]): RunHooks {
  return {
    toolHooks: undefined,
    notes,
    promptSubmitted: async () => ({ warnings: [] }),
    stopped: async () => ({ warnings: [] }),
    close: () => {},
  };
}
