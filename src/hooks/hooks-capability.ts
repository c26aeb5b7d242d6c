import type { CapabilityParts, RunContext } from '../capability/index.js';
import { ConfigError } from '../types/errors.js';
import type { RunWarning } from '../types/events.js';
import { prepareRunHooks } from './run-hooks.js';

/**
 * The run's hooks (docs/hooks.md). The `UserPromptSubmit` hooks run here, before any request: one
 * that refuses stops the run with exit code 1; context they add goes with the question, marked as the
 * hooks'. The `Stop` hooks' failures are reported with the result (`hookWarnings`).
 */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const hooks = prepareRunHooks(run.config, {
    cwd: run.cwd,
    env: run.env,
    projectTrusted: run.projectTrusted,
    envFiles: run.envFiles,
  });
  if (!hooks) return {};
  let submitted: Awaited<ReturnType<typeof hooks.promptSubmitted>>;
  try {
    submitted = await hooks.promptSubmitted(run.question, run.signal ?? new AbortController().signal);
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
  const warnings: RunWarning[] = [
    ...hooks.notes.map((message) => ({ code: 'hooks_untrusted', message, key: 'hooks' })),
    ...submitted.warnings.map((message) => ({ code: 'hook_failed', message, key: 'hooks' })),
  ];
  const stopWarnings: string[] = [];
  return {
    warnings,
    ...(hooks.toolHooks ? { toolHooks: hooks.toolHooks } : {}),
    ...(submitted.context === undefined
      ? {}
      : {
          question: (question: string) =>
            `${question}\n\n[Added by the user's UserPromptSubmit hook]\n${submitted.context}`,
        }),
    stopHook: async (ending, signal) => {
      const said = await hooks.stopped(
        {
          stop_hook_active: ending.stopHookActive,
          status: ending.status,
          winner_id: ending.winnerId,
          last_assistant_message: ending.finalAnswer,
        },
        signal,
      );
      stopWarnings.push(...said.warnings);
      return said.block ?? null;
    },
    finish: async () => (stopWarnings.length > 0 ? { hookWarnings: stopWarnings } : {}),
    close: async () => hooks.close(),
  };
}
