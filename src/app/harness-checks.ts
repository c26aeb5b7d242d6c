import type { MassGenConfig } from '../config/index.js';
import { sandboxSupport } from '../tools/execute-command/index.js';
import type { Env } from '../types/env.js';
import type { RunWarning } from '../types/events.js';

/** Why a harness of `type` cannot be confined here, or null. */
async function unconfined(type: string, env: Env): Promise<string | null> {
  // The harness's own module: loaded by a run with a claude_code agent only.
  if (type === 'claude_code')
    return (await import('../backends/harness/claude-code.js')).claudeSandboxMissing(env.PATH);
  if (type === 'gemini_cli') {
    const support = sandboxSupport(env.PATH);
    return support.ok
      ? null
      : `the Gemini CLI runs outside massgen's OS sandbox (${support.reason}); only its own workspace checks hold`;
  }
  return null;
}

/**
 * What a coding-agent harness cannot enforce on this machine, said loudly at the start of the run: the
 * harness still runs, with what it cannot confine switched off where that is possible.
 */
export async function harnessWarnings(config: MassGenConfig, env: Env): Promise<RunWarning[]> {
  const reasons = await Promise.all(config.agents.map((agent) => unconfined(agent.backend.type, env)));
  return config.agents.flatMap((agent, index) => {
    const why = reasons[index];
    return why === null || why === undefined
      ? []
      : [{ code: 'harness_unsandboxed', key: `agents[${index}].backend`, message: `${agent.id}: ${why}.` }];
  });
}
