import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/index.js';
import { ConfigError } from '../types/errors.js';
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

  it('--validate reports the missing sandbox as a warning of this machine, not an error of the file', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'massgen-sandboxes-'));
    const file = path.join(dir, 'team.yaml');
    writeFileSync(
      file,
      'agents:\n  - id: coder\n    backend: { type: chatcompletion, model: m, api_key: k, cwd: ws, enable_code_execution: true, execution_mode: sandbox }\n',
    );
    const report = validateConfig(file, { cwd: dir, env: NO_BWRAP });
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.path)).toEqual(['agents[0].backend.execution_mode']);
    expect(report.sandbox).toMatch(/^✖ none: bubblewrap \(bwrap\) is not installed/);
  });

  it('an unknown execution_mode lists the valid ones', () => {
    expect(() => agentWith({ execution_mode: 'bwrap' })).toThrow(
      'agents[0].backend.execution_mode: invalid value "bwrap"; allowed: sandbox, local, docker',
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
