import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse-config.js';
import { ConfigError } from '../../types/errors.js';
import type { AgentSandbox } from '../agent-sandbox.js';
import { computerToolProvider } from './computer-capability.js';

const agentConfig = (computer: unknown) =>
  parseConfig(
    { agent: { id: 'a', backend: { type: 'openai', model: 'm' } }, tools: { computer } },
    { env: {} },
  );

const sandbox = (PATH: string): AgentSandbox => ({
  workspace: '/tmp/ws',
  checkPath: () => Promise.resolve({ allowed: true }) as never,
  env: { PATH },
  commands: 'sandbox',
  layout: () => ({ workspace: '/tmp/ws', readOnly: [], writable: [], hidden: [], network: false }),
  bwrap: null,
});

describe('tools.computer in the config', () => {
  it('fills in the defaults and refuses other display servers', () => {
    expect(agentConfig({ display: 'xvfb' }).tools.computer).toEqual({
      display: 'xvfb',
      width: 1024,
      height: 768,
      native: 'auto',
    });
    expect(agentConfig({ native: false }).tools.computer?.native).toBe(false);
    expect(() => agentConfig({ display: 'wayland' })).toThrow(/display/);
    expect(() => agentConfig({ native: true })).toThrow(/native/);
  });

  it('needs a workspace and Xvfb and xdotool on PATH, before the run starts', () => {
    const config = agentConfig({});
    const agent = config.agents[0];
    const computer = config.tools.computer!;
    expect(() => computerToolProvider(agent, computer, undefined)).toThrow(ConfigError);
    expect(() => computerToolProvider(agent, computer, undefined)).toThrow(/no workspace/);
    expect(() => computerToolProvider(agent, computer, sandbox('/nonexistent'))).toThrow(
      /Xvfb and xdotool not found on PATH/,
    );
  });
});
