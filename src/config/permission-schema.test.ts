import { describe, expect, it } from 'vitest';
import { checkConfig, parseConfig } from './parse-config.js';

const team = (extra: Record<string, unknown>, agent: Record<string, unknown> = {}) => ({
  agents: [{ id: 'a', backend: { type: 'openai', model: 'gpt-4o' }, ...agent }],
  ...extra,
});

describe('permissions: in the config', () => {
  it('accepts ordered rules team-wide and per agent, patterns as one string or a list', () => {
    const config = parseConfig(
      team(
        {
          permissions: [
            { deny: 'write_file', path: ['secrets/**', '*.pem'], reason: 'keys stay put' },
            { ask: 'execute_command', command: 'git push*' },
            { allow: '*', server: 'github', mcp_tool: 'get_*' },
            { deny: '*', host: '*.internal' },
            { allow: 'deploy', args: { env: 'staging*' } },
          ],
        },
        { permissions: [{ allow: 'execute_command', command_regex: ['pytest.*'] }] },
      ),
      { env: {} },
    );
    expect(config.permissions).toHaveLength(5);
    expect(config.permissions[1]).toEqual({ ask: 'execute_command', command: 'git push*' });
    expect(config.agents[0]?.permissions).toEqual([
      { allow: 'execute_command', command_regex: ['pytest.*'] },
    ]);
    expect(parseConfig(team({}), { env: {} }).permissions).toEqual([]);
  });

  it('needs exactly one of allow, ask or deny, and regular expressions that compile', () => {
    const none = checkConfig(team({ permissions: [{ path: 'x' }] }), { env: {} });
    expect(none.diagnostics[0]?.message).toMatch(/needs one of allow:, ask: or deny:/);
    const two = checkConfig(team({ permissions: [{ allow: 'a', deny: 'b' }] }), { env: {} });
    expect(two.diagnostics[0]?.message).toMatch(
      /exactly one of allow:, ask: or deny: \(this one has allow and deny\)/,
    );
    const regex = checkConfig(team({ permissions: [{ deny: '*', command_regex: '(' }] }), { env: {} });
    expect(regex.diagnostics[0]?.message).toMatch(/"\(" is not a valid regular expression/);
    const typo = checkConfig(team({ permissions: [{ deny: '*', paths: 'x' }] }), { env: {} });
    expect(typo.diagnostics[0]?.message).toMatch(/unknown key "paths"/);
  });

  it('takes write_mode on a context path', () => {
    const config = parseConfig(
      team({ orchestrator: { context_paths: [{ path: '.', permission: 'write', write_mode: 'worktree' }] } }),
      { env: {} },
    );
    expect(config.orchestrator.context_paths[0]?.write_mode).toBe('worktree');
    const bad = checkConfig(
      team({ orchestrator: { context_paths: [{ path: '.', permission: 'write', write_mode: 'branch' }] } }),
      { env: {} },
    );
    expect(bad.diagnostics[0]?.path).toBe('orchestrator.context_paths[0].write_mode');
  });
});

describe("MassGen's related keys", () => {
  it('turns coordination.write_mode into write_mode on every write context path', () => {
    const { config, warnings } = checkConfig(
      team({
        orchestrator: {
          coordination: { write_mode: 'auto' },
          context_paths: [
            { path: 'src', permission: 'write' },
            { path: 'docs', permission: 'read' },
            { path: 'site', permission: 'write', write_mode: 'direct' },
          ],
        },
      }),
      { env: {} },
    );
    expect(config?.orchestrator.context_paths.map((c) => c.write_mode)).toEqual([
      'worktree',
      undefined,
      'direct',
    ]);
    expect(warnings.map((w) => w.message)).toContain(
      'orchestrator.coordination.write_mode (MassGen): became write_mode: worktree on context_paths[0]',
    );
    const legacy = checkConfig(
      team({
        orchestrator: {
          coordination: { use_two_tier_workspace: true },
          context_paths: [{ path: 'src', permission: 'write' }],
        },
      }),
      { env: {} },
    );
    expect(legacy.config?.orchestrator.context_paths[0]?.write_mode).toBe('worktree');
    const isolated = checkConfig(
      team({
        orchestrator: {
          coordination: { write_mode: 'legacy' },
          context_paths: [{ path: 'x', permission: 'write' }],
        },
      }),
      { env: {} },
    );
    expect(isolated.config?.orchestrator.context_paths[0]?.write_mode).toBe('direct');
  });

  it("turns an agent's command filters into its permission rules (regular expressions, from the start)", () => {
    const { config, diagnostics, warnings } = checkConfig(
      {
        agents: [
          {
            id: 'a',
            backend: {
              type: 'openai',
              model: 'gpt-4o',
              command_line_blocked_commands: ['rm.*', 'git push'],
              command_line_allowed_commands: ['python.*', 'pytest.*'],
            },
            permissions: [{ ask: 'write_file' }],
          },
        ],
      },
      { env: {} },
    );
    expect(diagnostics).toEqual([]);
    expect(config?.agents[0]?.permissions).toEqual([
      { ask: 'write_file' },
      {
        deny: 'execute_command',
        command_regex: ['rm.*', 'git push'],
        reason: 'blocked by command_line_blocked_commands',
      },
      { allow: 'execute_command', command_regex: ['python.*', 'pytest.*'] },
      { deny: 'execute_command', reason: 'only the commands in command_line_allowed_commands may run' },
    ]);
    expect(warnings.map((w) => w.message)).toEqual([
      'agents[0].backend.command_line_blocked_commands (MassGen): became a deny rule in agents[0].permissions (command_regex)',
      'agents[0].backend.command_line_allowed_commands (MassGen): became allow and deny rules in agents[0].permissions (command_regex)',
    ]);
  });
});
