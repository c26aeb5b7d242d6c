import { existsSync } from 'node:fs';
import path from 'node:path';
import type { MassGenConfig } from '../config/index.js';
import { PROJECT_HOOKS_DIR } from '../config/project-trust.js';
import { ConfigError } from '../types/errors.js';
import type { RunEvent, RunWarning } from '../types/events.js';
import type { ToolHooks } from '../types/tool.js';

/**
 * A run's hooks (docs/hooks.md), wired in with the fewest lines in run-massgen.ts: `src/hooks/` is
 * loaded only when the config or the folder has hooks. The `UserPromptSubmit` hooks run here, before
 * any request: one that refuses stops the run with exit code 1, context they add goes with the
 * question (marked as the hooks').
 */
export interface StartedRunHooks {
  toolHooks: ToolHooks | undefined;
  warnings: RunWarning[];
  /** The question (as the run sends it) with what `UserPromptSubmit` added, marked as the hook's. */
  withContext(question: string): string;
  /** Runs the `Stop` hooks with the run's outcome; their warnings. */
  stopped(finished: Extract<RunEvent, { type: 'run.finished' }> | null): Promise<string[]>;
  close(): void;
}

const usesHooks = (config: MassGenConfig, cwd: string) =>
  config.hooks !== undefined ||
  config.agents.some((a) => a.hooks !== undefined) ||
  existsSync(path.join(cwd, PROJECT_HOOKS_DIR));

export async function startRunHooks(
  config: MassGenConfig,
  options: {
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
    projectTrusted: boolean;
    envFiles: readonly string[];
    question: string;
    signal?: AbortSignal;
  },
): Promise<StartedRunHooks | null> {
  if (!usesHooks(config, options.cwd)) return null;
  const { prepareRunHooks } = await import('../hooks/index.js');
  const hooks = prepareRunHooks(config, options);
  if (!hooks) return null;
  const signal = options.signal ?? new AbortController().signal;
  let submitted: Awaited<ReturnType<typeof hooks.promptSubmitted>>;
  try {
    submitted = await hooks.promptSubmitted(options.question, signal);
  } catch (error) {
    hooks.close();
    throw error;
  }
  if (submitted.blocked !== undefined) {
    hooks.close();
    throw new ConfigError(`the question was refused by the hook ${submitted.blocked}`, {
      hint: 'change the question, or the hook (docs/hooks.md)',
    });
  }
  const warnings = [
    ...hooks.notes.map((message) => ({ code: 'hooks_untrusted', message, key: 'hooks' })),
    ...submitted.warnings.map((message) => ({ code: 'hook_failed', message, key: 'hooks' })),
  ];
  return {
    toolHooks: hooks.toolHooks,
    warnings,
    withContext: (question) =>
      submitted.context === undefined
        ? question
        : `${question}\n\n[Added by the user's UserPromptSubmit hook]\n${submitted.context}`,
    stopped: (finished) =>
      hooks.stopped(
        {
          status: finished?.status ?? 'cancelled',
          winner_id: finished?.winnerId ?? null,
          last_assistant_message: finished?.finalAnswer ?? null,
        },
        new AbortController().signal,
      ),
    close: () => hooks.close(),
  };
}
