import type { Capability } from '../capability/index.js';
import type { MassGenConfig } from '../config/index.js';

/** Whether the config names any skills folder (else a run has no skills to load). */
export function configUsesSkills(config: MassGenConfig): boolean {
  return (config.skills?.paths ?? []).length > 0 || config.agents.some((a) => (a.skills ?? []).length > 0);
}

/**
 * Agent Skills (docs/skills.md): each agent's skills listed in its system prompt, `load_skill` ahead
 * of its other tools with the skill folders shown read-only in its sandbox, a warning per malformed
 * `SKILL.md`, and with `skills.evolve` the skills a run proposes saved after it.
 */
export const skillsCapability: Capability = {
  name: 'skills',
  uses: (config, options) => configUsesSkills(config) && !options.agents,
  load: () => import('./skills-capability.js'),
  checks: async () => (await import('./skills-capability.js')).problems,
};
