import type { CapabilityParts, RunContext } from '../../capability/index.js';
import type { AgentConfig } from '../../config/index.js';
import type { ComputerConfig } from '../../config/computer-schema.js';
import { supportsNativeComputer } from '../../backends/native-computer.js';
import type { AgentSandbox } from '../agent-sandbox.js';
import type { ToolProvider } from '../tool-provider.js';
import { ConfigError } from '../../types/errors.js';
import { findExecutable } from '../../util/find-executable.js';
import { createComputerToolProvider } from './computer-tool-provider.js';

/** `tools.computer`: every agent built from the config gets a virtual desktop of its own. */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const computer = run.config.tools.computer;
  if (!computer) return {};
  return { equip: ({ agent, sandbox }) => ({ providers: [computerToolProvider(agent, computer, sandbox)] }) };
}

/**
 * The `computer_*` tools for one agent from `tools.computer` (docs/computer-use.md): a virtual desktop
 * of its own (Xvfb, driven with xdotool), screenshots saved in its workspace. An agent without a
 * workspace, or a machine without Xvfb or xdotool, is a configuration error before the run starts.
 * With `native: auto` an agent whose backend and model have the vendor's own computer tool (Claude,
 * `src/backends/native-computer.ts`) gets that instead of the generic click/type/screenshot tools.
 */
export function computerToolProvider(
  agent: AgentConfig,
  computer: ComputerConfig,
  sandbox: AgentSandbox | undefined,
): ToolProvider {
  if (!sandbox) {
    throw new ConfigError(`tools.computer: agent "${agent.id}" has no workspace for its screenshots`, {
      path: 'tools.computer',
      hint: `give it one: backend.cwd: ${agent.id}_workspace`,
    });
  }
  const searchPath = sandbox.env.PATH;
  const found = { xvfb: findExecutable('Xvfb', searchPath), xdotool: findExecutable('xdotool', searchPath) };
  const missing = Object.entries(found).filter(([, file]) => file === null);
  if (missing.length > 0) {
    throw new ConfigError(
      `tools.computer: ${missing.map(([name]) => (name === 'xvfb' ? 'Xvfb' : name)).join(' and ')} not found on PATH`,
      { path: 'tools.computer', hint: 'install them (Debian: apt-get install xvfb xdotool)' },
    );
  }
  return createComputerToolProvider({
    workspace: sandbox.workspace,
    width: computer.width,
    height: computer.height,
    xvfb: found.xvfb!,
    xdotool: found.xdotool!,
    env: sandbox.env,
    sandbox: sandbox.bwrap
      ? { bwrap: sandbox.bwrap, layout: sandbox.layout }
      : sandbox.commands === 'local'
        ? 'unsandboxed'
        : null,
    native: computer.native === 'auto' && supportsNativeComputer(agent.backend.type, agent.backend.model),
  });
}
