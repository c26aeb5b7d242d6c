import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/index.js';
import { sandboxSupport } from '../tools/execute-command/index.js';
import { findExecutable } from '../util/find-executable.js';
import { ConfigError } from '../types/errors.js';
import { buildToolRegistry } from './build-tools.js';
import { planCommands, prepareSandboxes, sandboxLayout } from './sandboxes.js';
import { validateConfig } from './validate.js';

const NO_BWRAP = { PATH: '/nonexistent-massgen-bin' };

function agentWith(backend: Record<string, unknown>) {
  const config = parseConfig(
    {
      agents: [
        {
          id: 'coder',
          backend: {
            type: 'chatcompletion',
            model: 'm',
            api_key: 'k',
            cwd: 'ws',
            enable_code_execution: true,
            ...backend,
          },
        },
      ],
    },
    { env: {} },
  );
  return config;
}

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('where execute_command runs', () => {
  it('explicit sandbox on a machine without one is a config error naming what to install', () => {
    const config = agentWith({ execution_mode: 'sandbox' });
    const error = (() => {
      try {
        planCommands(config.agents[0]!, 0, NO_BWRAP);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'agents[0].backend.execution_mode: sandbox, but bubblewrap (bwrap) is not installed',
    );
    expect((error as ConfigError).path).toBe('agents[0].backend.execution_mode');
    expect((error as ConfigError).hint).toMatch(/apt-get install bubblewrap/);
  });

  it('unset, without a sandbox, drops execute_command and says why; local warns that it is unsandboxed', async () => {
    expect(planCommands(agentWith({}).agents[0]!, 0, NO_BWRAP)).toEqual({
      mode: null,
      warning: {
        code: 'no_sandbox',
        key: 'agents[0].backend.execution_mode',
        message: expect.stringMatching(
          /^coder has no execute_command: bubblewrap \(bwrap\) is not installed\. To enable it, install it/,
        ),
      },
    });
    dir = mkdtempSync(path.join(tmpdir(), 'massgen-sandboxes-'));
    const local = await prepareSandboxes(agentWith({ execution_mode: 'local' }), NO_BWRAP, {
      projectDir: dir,
      contextPaths: [],
      previousWorkspace: null,
    });
    expect(local.warnings.map((w) => w.code)).toEqual(['unsandboxed']);
    expect(local.sandboxes.get('coder')?.commands).toBe('local');
    const none = await prepareSandboxes(agentWith({}), NO_BWRAP, {
      projectDir: dir,
      contextPaths: [],
      previousWorkspace: null,
    });
    expect(none.warnings.map((w) => w.code)).toEqual(['no_sandbox']);
    expect(none.sandboxes.get('coder')?.commands).toBeNull();
  });

  it('--validate reports the missing sandbox as a warning of this machine, not an error of the file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'massgen-sandboxes-'));
    const file = path.join(dir, 'team.yaml');
    writeFileSync(
      file,
      'agents:\n  - id: coder\n    backend: { type: chatcompletion, model: m, api_key: k, cwd: ws, enable_code_execution: true, execution_mode: sandbox }\n',
    );
    const report = await validateConfig(file, { cwd: dir, env: NO_BWRAP });
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.path)).toEqual(['agents[0].backend.execution_mode']);
    expect(report.sandbox).toMatch(/^✖ none: bubblewrap \(bwrap\) is not installed/);
  });

  it('an unknown execution_mode lists the valid ones', () => {
    expect(() => agentWith({ execution_mode: 'bwrap' })).toThrow(
      'agents[0].backend.execution_mode: invalid value; allowed: sandbox, local, docker',
    );
  });
});

describe('sandboxLayout', () => {
  it('hides home and .massgen, grants peers and read context paths, write context paths only to the presenter', () => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'massgen-layout-')));
    for (const sub of [
      '.massgen/workspaces/ws',
      '.massgen/temp_workspaces/agent1',
      'docs',
      'site/keep',
      'home',
    ])
      mkdirSync(path.join(dir, sub), { recursive: true });
    const layout = sandboxLayout({
      workspace: path.join(dir, '.massgen/workspaces/ws'),
      peersDir: path.join(dir, '.massgen/temp_workspaces/agent1'),
      massgenDir: path.join(dir, '.massgen'),
      contextPaths: [
        { path: path.join(dir, 'docs'), permission: 'read', protectedPaths: [] },
        { path: path.join(dir, 'site'), permission: 'write', protectedPaths: [path.join(dir, 'site/keep')] },
      ],
      previousWorkspace: null,
      hiddenPaths: [],
      network: false,
      env: { HOME: path.join(dir, 'home'), PATH: '/usr/bin' },
    });
    const coordination = layout('coordination');
    expect(coordination.hidden).toEqual(
      expect.arrayContaining([path.join(dir, 'home'), path.join(dir, '.massgen')]),
    );
    expect(coordination.readOnly).toEqual(
      expect.arrayContaining([
        path.join(dir, '.massgen/temp_workspaces/agent1'),
        path.join(dir, 'docs'),
        path.join(dir, 'site'),
        path.join(dir, 'site/keep'),
      ]),
    );
    expect(coordination.writable).toEqual([]);
    const presentation = layout('presentation');
    expect(presentation.writable).toEqual([path.join(dir, 'site')]);
    expect(presentation.readOnly).not.toContain(path.join(dir, 'site'));
    expect(presentation.readOnly).toContain(path.join(dir, 'site/keep'));
    expect(presentation.network).toBe(false);
  });
});

describe('execution_mode: docker on a machine without a Docker engine', () => {
  const support = sandboxSupport(process.env.PATH);
  /** MassGen's own keys, as in its skills/skills_basic.yaml. */
  const massgenConfig = (docker: Record<string, unknown> = {}) =>
    parseConfig(
      {
        agents: [
          {
            id: 'agent_a',
            backend: {
              type: 'chatcompletion',
              model: 'm',
              api_key: 'k',
              cwd: 'workspace1',
              enable_mcp_command_line: true,
              command_line_execution_mode: 'docker',
              ...docker,
            },
          },
        ],
      },
      { env: {} },
    );
  /** A PATH with bubblewrap and prlimit, and a docker client whose engine is not running. */
  const machine = () => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'massgen-docker-fallback-')));
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    for (const tool of ['bwrap', 'prlimit'])
      symlinkSync(findExecutable(tool, process.env.PATH)!, path.join(bin, tool));
    writeFileSync(
      path.join(bin, 'docker'),
      '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    return { PATH: `${bin}:/usr/bin:/bin` };
  };
  const options = () => ({ projectDir: dir, contextPaths: [], previousWorkspace: null });

  it.skipIf(!support.ok)(
    `runs its commands in the OS sandbox, with one warning saying what differs${support.ok ? '' : ` (skipped: ${support.reason})`}`,
    async () => {
      const env = machine();
      const config = massgenConfig();
      const prepared = await prepareSandboxes(config, env, options());
      // (Root without a pids cgroup is also told its commands have no kernel process bound.)
      expect(prepared.warnings.filter((w) => w.code !== 'no_process_limit')).toEqual([
        {
          code: 'docker_fallback',
          key: 'agents[0].backend.execution_mode',
          message:
            'agent_a: execution_mode is docker, but no Docker engine is available here ("docker info" failed: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?); its commands run in the OS sandbox instead — with this machine\'s programs rather than the debian:bookworm-slim image, the workspace at its own path rather than /workspace, network off as configured, the memory limit of sandbox.memory (2 GiB) rather than docker.memory, and no CPU limit (docker.fallback: error stops the run instead).',
        },
      ]);
      const sandbox = prepared.sandboxes.get('agent_a')!;
      expect(sandbox.commands).toBe('sandbox');
      const registry = buildToolRegistry({
        agent: config.agents[0]!,
        index: 0,
        customTools: [],
        baseDir: dir,
        sandbox,
      })!;
      const result = await registry.execute(
        {
          id: 'c1',
          name: 'execute_command',
          arguments: { command: 'echo ran; grep CapEff /proc/self/status' },
        },
        { agentId: 'agent_a', phase: 'coordination', signal: new AbortController().signal },
      );
      expect(result.content).toBe('exit code 0 (sandbox)\nran\nCapEff:\t0000000000000000\n');
      expect(result.isError).toBeFalsy();
      await registry.close?.();
    },
  );

  it('docker.fallback: error stops the run with one line naming the key', async () => {
    const env = machine();
    const error = await prepareSandboxes(
      massgenConfig({ docker: { fallback: 'error' } }),
      env,
      options(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'agents[0].backend.docker.fallback: error, and no Docker engine is available here ("docker info" failed: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?)',
    );
    expect((error as ConfigError).path).toBe('agents[0].backend.docker.fallback');
    expect((error as ConfigError).hint).toBe(
      'start Docker, or set docker.fallback: sandbox to run the commands in the OS sandbox',
    );
  });
});
