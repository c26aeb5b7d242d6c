import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Capability } from '../capability/index.js';
import { PROJECT_HOOKS_DIR } from '../config/project-trust.js';

/**
 * The user's hooks (docs/hooks.md): the config's `hooks:` (team-wide and per agent) and a trusted
 * folder's `.massgen/hooks/`. `UserPromptSubmit` runs while the run is prepared — before any request
 * — and may refuse the question or add to it; PreToolUse and PostToolUse go round every tool call;
 * `Stop` is asked each time the run would end. Loaded only when the config or the folder has hooks.
 */
export const hooksCapability: Capability = {
  name: 'hooks',
  uses: (config, options) =>
    config.hooks !== undefined ||
    config.agents.some((a) => a.hooks !== undefined) ||
    existsSync(path.join(path.resolve(options.cwd ?? process.cwd()), PROJECT_HOOKS_DIR)),
  load: () => import('./hooks-capability.js'),
};
