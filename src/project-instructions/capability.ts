import type { Capability } from '../capability/index.js';

/**
 * The project's own instructions (docs/hooks.md): `AGENTS.md` / `CLAUDE.md` of the run's folder and
 * of each context path, given to every agent with a workspace (`backend.cwd`). On unless
 * `project_instructions: false`; agents given in code have no workspace, so nothing to give.
 */
export const projectInstructionsCapability: Capability = {
  name: 'project-instructions',
  uses: (config, options) =>
    config.project_instructions &&
    !options.agents &&
    config.agents.some((agent) => agent.backend.cwd !== undefined),
  load: () => import('./instructions-capability.js'),
};
