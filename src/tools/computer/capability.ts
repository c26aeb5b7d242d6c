import type { Capability } from '../../capability/index.js';

/** Computer use (docs/computer-use.md, `tools.computer`): a virtual desktop per agent (Xvfb, xdotool). */
export const computerCapability: Capability = {
  name: 'computer',
  uses: (config, options) => config.tools.computer !== undefined && !options.agents,
  load: () => import('./computer-capability.js'),
};
