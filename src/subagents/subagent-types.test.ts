import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/index.js';
import { childConfig, subagentTeam } from './child-run.js';
import type { ChildLaunch } from './subagent-manager.js';
import { loadSubagentTypes, parseSubagentFile } from './subagent-types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-subagent-types-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, '.agent', 'subagent_types', name, 'SUBAGENT.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return dir;
}

describe('SUBAGENT.md types', () => {
  it('ships researcher, critic and builder; a project type of the same name replaces the shipped one', () => {
    expect([...loadSubagentTypes(null).keys()].sort()).toEqual(['builder', 'critic', 'researcher']);
    const dir = project({
      critic:
        '---\nname: critic\ndescription: Strict.\nbackend:\n  type: openai\n  model: gpt-5-nano\n---\nBe strict.\n',
    });
    const critic = loadSubagentTypes(dir).get('critic')!;
    expect(critic).toMatchObject({ description: 'Strict.', systemMessage: 'Be strict.' });
    expect(critic.backend).toEqual({ type: 'openai', model: 'gpt-5-nano' });
  });

  it('says which file is wrong and how', () => {
    expect(() => parseSubagentFile('x/SUBAGENT.md', 'no front matter')).toThrow(
      /x\/SUBAGENT\.md: must start with YAML front matter/,
    );
    expect(() => parseSubagentFile('x/SUBAGENT.md', '---\nname: x\ndescription: d\n---\n')).toThrow(
      /the body is empty/,
    );
    expect(() =>
      parseSubagentFile('x/SUBAGENT.md', '---\nname: x\ndescription: d\nbackend:\n  type: 3\n---\nbody'),
    ).toThrow(/x\/SUBAGENT\.md: backend\.type/);
    const dir = project({ other: '---\nname: wrong\ndescription: d\n---\nbody\n' });
    expect(() => loadSubagentTypes(dir)).toThrow(/name "wrong" must match its folder "other"/);
  });
});

describe("a subagent's config", () => {
  const parent = parseConfig(
    {
      agents: [
        { id: 'alpha', backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' } },
        {
          id: 'beta',
          backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' },
          subagent_agents: [
            {
              id: 'helper',
              backend: { type: 'chatcompletion', model: 'h', base_url: 'http://127.0.0.1:9/v1' },
            },
          ],
        },
      ],
      orchestrator: { max_cost_usd: 1, coordination: { enable_subagents: true, max_subagent_depth: 2 } },
    },
    { env: {} },
  );
  const launch = (agentId: string): Pick<ChildLaunch, 'agentId' | 'type' | 'logRoot'> => ({
    agentId,
    type: null,
    logRoot: null,
  });

  it('runs with the agent itself, or its subagent_agents, one level of depth down, within the budget', () => {
    expect(subagentTeam(parent, launch('alpha')).map((a) => a.id)).toEqual(['alpha']);
    expect(subagentTeam(parent, launch('beta')).map((a) => a.id)).toEqual(['helper']);
    const child = parseConfig(childConfig({ config: parent, baseDir: '/cfg' }, launch('alpha')), { env: {} });
    expect(child.orchestrator.coordination).toMatchObject({ enable_subagents: true, max_subagent_depth: 1 });
    expect(child.orchestrator.max_cost_usd).toBe(1);
    const grandchild = parseConfig(childConfig({ config: child, baseDir: '/cfg' }, launch('alpha')), {
      env: {},
    });
    expect(grandchild.orchestrator.coordination).toMatchObject({
      enable_subagents: false,
      max_subagent_depth: 0,
    });
  });
});
