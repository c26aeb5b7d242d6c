import type { Capability } from '../../capability/index.js';

/**
 * The browser (docs/browser.md, `tools.browser`): the `browser_*` tools, each agent with its own
 * Chromium; playwright-core loads with an agent's first browser call.
 */
export const browserCapability: Capability = {
  name: 'browser',
  uses: (config, options) => config.tools.browser !== undefined && !options.agents,
  load: () => import('./browser-capability.js'),
};
