import { describe, expect, it } from 'vitest';
import { readMassGenFormat } from './massgen-compat.js';
import { parseConfig } from './parse-config.js';

describe("MassGen's hooks", () => {
  it('become Claude Code hooks: handler → command, backend.hooks → the agent; Python callables are left out', () => {
    const raw = {
      hooks: {
        PreToolUse: [{ matcher: '*', handler: './check.sh', type: 'command', timeout: 5 }],
        PostToolUse: [{ handler: 'mod.fn', type: 'python' }],
      },
      agents: [
        {
          id: 'a',
          backend: {
            type: 'openai',
            model: 'gpt-4o',
            hooks: {
              PreToolUse: [{ matcher: 'Write', handler: 'guard.py', type: 'command', override: true }],
            },
          },
        },
      ],
    };
    const { value, notes } = readMassGenFormat(raw);
    expect(value).toMatchObject({
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: './check.sh', timeout: 5 }] }],
        PostToolUse: [],
      },
      agents: [
        { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'guard.py' }] }] } },
      ],
    });
    expect(notes.map((n) => n.message)).toEqual([
      'hooks.PostToolUse[0] (MassGen): a Python callable hook (mod.fn) cannot run here: left out',
      'agents[0].backend.hooks.PreToolUse[0] (MassGen): override is not supported: team hooks still run, and a failing hook is a warning',
    ]);
    const config = parseConfig(raw, { env: { OPENAI_API_KEY: 'sk-x' } });
    expect(config.agents[0]!.hooks?.PreToolUse?.[0]?.hooks[0]?.command).toBe('guard.py');
    expect(config.project_instructions).toBe(true);
  });
});
