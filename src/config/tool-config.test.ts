import { describe, expect, it } from 'vitest';
import { backend, COORDINATION_DEFAULTS, messagesOf } from './config.test-support.js';
import { parseConfig } from './parse-config.js';

const withTools = (tools: Record<string, unknown>, orchestrator?: Record<string, unknown>) => ({
  agents: [{ id: 'a', backend: { ...backend, ...tools } }],
  ...(orchestrator ? { orchestrator } : {}),
});

describe('tool settings in the config', () => {
  it('accepts MCP servers of both kinds, inferring the type, with ${VAR} in their settings', () => {
    const config = parseConfig(
      withTools({
        mcp_servers: {
          files: { command: 'npx', args: ['-y', 'server'], env: { ROOT: '${ROOT}' } },
          remote: { url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        },
        allowed_tools: ['mcp__files__*'],
      }),
      { env: { ROOT: '/data', TOKEN: 't0k' } },
    );
    const servers = config.agents[0].backend.mcp_servers;
    expect(servers.files).toMatchObject({ command: 'npx', args: ['-y', 'server'], env: { ROOT: '/data' } });
    expect(servers.remote).toMatchObject({
      url: 'http://127.0.0.1:3001/mcp',
      headers: { Authorization: 'Bearer t0k' },
    });
  });

  it.each([
    [
      { fs: { type: 'stdio' } },
      'mcp_servers.fs.command: missing required key "command" for a stdio MCP server',
    ],
    [
      { web: { type: 'streamable-http' } },
      'mcp_servers.web.url: missing required key "url" for a streamable-http MCP server',
    ],
    [
      { fs: { type: 'stdoi', command: 'x' } },
      'mcp_servers.fs.type: invalid value; allowed: stdio, streamable-http',
    ],
    [
      { fs: { command: 'x', url: 'http://127.0.0.1/mcp' } },
      'mcp_servers.fs.url: "url" does not apply to a stdio MCP server',
    ],
    [
      { web: { url: 'http://h/mcp', cwd: '/tmp' } },
      'mcp_servers.web.cwd: "cwd" does not apply to a streamable-http MCP server',
    ],
    [
      { fs: { command: 'x', argz: [] } },
      'unknown key "argz" at agents[0].backend.mcp_servers.fs — did you mean "args"?',
    ],
    [{ fs: { command: 'x', args: 'one two' } }, 'mcp_servers.fs.args: expected a list'],
    [{ 'my server': { command: 'x' } }, 'mcp_servers["my server"]: server names may contain only letters'],
    // MassGen's list form needs a name on every entry.
    [[{ command: 'x' }], 'mcp_servers: mcp_servers written as a list needs a unique "name" on every entry'],
  ])('a malformed mcp_servers entry names the server and the field: %j', (servers, expected) => {
    const messages = messagesOf(withTools({ mcp_servers: servers }));
    expect(messages.join('\n')).toContain(expected);
  });

  it('a misspelt required key is reported once, as the typo', () => {
    const messages = messagesOf(withTools({ mcp_servers: { fs: { type: 'stdio', comand: 'npx' } } }));
    expect(messages).toEqual([
      'unknown key "comand" at agents[0].backend.mcp_servers.fs — did you mean "command"?',
    ]);
  });

  it('checks custom tool entries and suggests misspelt keys', () => {
    const messages = messagesOf(
      withTools({
        custom_tools: [
          { name: 'bad name', path: 't.ts', function: 'f' },
          { name: 'ok', path: 't.ts', fucntion: 'f' },
        ],
      }),
    );
    expect(messages.join('\n')).toContain('custom_tools[0].name: must be 1-64 letters, digits');
    expect(messages.join('\n')).toContain(
      'unknown key "fucntion" at agents[0].backend.custom_tools[1] — did you mean "function"?',
    );
  });

  it('reads planning mode and approval settings, and suggests misspelt ones', () => {
    const config = parseConfig(
      withTools(
        {},
        {
          auto_approve: false,
          coordination: { enable_planning_mode: true, planning_mode_allowed_tools: ['x'] },
        },
      ),
      { env: {} },
    );
    expect(config.orchestrator.auto_approve).toBe(false);
    expect(config.orchestrator.coordination).toEqual({
      ...COORDINATION_DEFAULTS,
      enable_planning_mode: true,
      planning_mode_allowed_tools: ['x'],
    });
    const messages = messagesOf(withTools({}, { coordination: { enable_planing_mode: true } }));
    expect(messages.join('\n')).toContain('did you mean "enable_planning_mode"?');
  });
});
