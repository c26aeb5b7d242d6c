import { claudeSandboxMissing } from '../backends/harness/claude-code.js';
import type { MassGenConfig } from '../config/index.js';
import type { RunWarning } from '../types/events.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a coding-agent harness cannot enforce on this machine, said loudly at the start of the run
 * (and by `--validate`): the harness still runs, with the tool it cannot confine switched off.
 */
export function harnessWarnings(config: MassGenConfig, env: Env): RunWarning[] {
  return config.agents.flatMap((agent, index) => {
    if (agent.backend.type !== 'claude_code') return [];
    const missing = claudeSandboxMissing(env.PATH);
    return missing === null
      ? []
      : [
          {
            code: 'harness_unsandboxed',
            key: `agents[${index}].backend`,
            message: `${agent.id}: ${missing}.`,
          },
        ];
  });
}
