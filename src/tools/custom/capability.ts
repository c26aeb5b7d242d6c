import type { Capability, RunContext } from '../../capability/index.js';
import { ConfigError } from '../../types/errors.js';
import { closestMatch } from '../../util/closest-match.js';

/** Tools given in code must name agents that exist: a typo would silently leave an agent without them. */
function checkToolsByAgent(run: RunContext): void {
  const ids = run.config.agents.map((a) => a.id);
  for (const id of Object.keys(run.options.tools ?? {})) {
    if (ids.includes(id)) continue;
    const near = closestMatch(id, ids);
    throw new ConfigError(
      `tools were given for agent "${id}", which is not in the config${near ? ` — did you mean "${near}"?` : ''}`,
      { hint: `agents: ${ids.join(', ')}` },
    );
  }
}

/**
 * A library caller's own tools (`runMassGen({ tools })`, made with `defineTool`): they join each
 * named agent's custom tools, after the config's.
 */
export const libraryToolsCapability: Capability = {
  name: 'library-tools',
  uses: (_config, options) => options.tools !== undefined && !options.agents,
  load: async () => ({
    prepare: async (run) => {
      checkToolsByAgent(run);
      return { tools: run.options.tools ?? {} };
    },
  }),
};
