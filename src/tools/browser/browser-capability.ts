import type { CapabilityParts, RunContext } from '../../capability/index.js';
import type { AgentConfig } from '../../config/index.js';
import type { BrowserConfig } from '../../config/browser-schema.js';
import type { AgentSandbox } from '../agent-sandbox.js';
import type { ToolProvider } from '../tool-provider.js';
import { ConfigError } from '../../types/errors.js';
import { createBrowserToolProvider } from './browser-tool-provider.js';
import { findChromium } from './chromium-path.js';

/** `tools.browser`: every agent built from the config gets its own Chromium. */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const browser = run.config.tools.browser;
  if (!browser) return {};
  return { equip: ({ agent, sandbox }) => ({ providers: [browserToolProvider(agent, browser, sandbox)] }) };
}

/**
 * The `browser_*` tools for one agent from `tools.browser` (docs/browser.md): its own Chromium, with
 * screenshots and downloads saved in its workspace — so an agent without one (`backend.cwd`), or a
 * machine without Chromium, is a configuration error before the run starts.
 */
export function browserToolProvider(
  agent: AgentConfig,
  browser: BrowserConfig,
  sandbox: AgentSandbox | undefined,
): ToolProvider {
  if (!sandbox) {
    throw new ConfigError(
      `tools.browser: agent "${agent.id}" has no workspace for screenshots and downloads`,
      {
        path: 'tools.browser',
        hint: `give it one: backend.cwd: ${agent.id}_workspace`,
      },
    );
  }
  const executablePath = browser.executable_path ?? findChromium(sandbox.env.PATH);
  if (executablePath === null) {
    throw new ConfigError('tools.browser: no Chromium or Chrome found on PATH', {
      path: 'tools.browser.executable_path',
      hint: 'install one (Debian: apt-get install chromium) or set tools.browser.executable_path',
    });
  }
  return createBrowserToolProvider({
    executablePath,
    headless: browser.headless,
    ...(browser.allowed_origins === undefined ? {} : { allowedOrigins: browser.allowed_origins }),
    workspace: sandbox.workspace,
    env: sandbox.env,
  });
}
