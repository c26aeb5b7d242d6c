import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../src/app/validate.js';
import { TEAM_PRESETS } from '../src/app/index.js';
import { listExamples, resolveExampleRef } from '../src/config/examples.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const examples = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.split(path.sep).join('/'))
  .sort();
const names = examples.map((f) => f.replace(/\.yaml$/, ''));
const env = {
  // MCP examples start their servers with npx, which --validate looks for on PATH.
  PATH: process.env.PATH,
  MCP_TOKEN: 'token',
  // The context-path example reads its folders from the environment; any existing folder will do.
  DOCS_DIR: root,
  SITE_DIR: root,
  OPENAI_API_KEY: 'sk-test',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  GOOGLE_API_KEY: 'g-test',
  XAI_API_KEY: 'xai-test',
  AZURE_OPENAI_API_KEY: 'az-test',
  GROQ_API_KEY: 'gsk-test',
  OPENROUTER_API_KEY: 'or-test',
};

interface RawExample {
  agent?: { backend: { type: string; provider?: string } };
  agents?: { backend: { type: string; provider?: string } }[];
}
const raw = (name: string): RawExample =>
  parse(readFileSync(path.join(root, `${name}.yaml`), 'utf8')) as RawExample;
const agentsOf = (name: string) => {
  const data = raw(name);
  return data.agents ?? (data.agent ? [data.agent] : []);
};

describe('bundled example configs', () => {
  it('exist', () => expect(examples.length).toBeGreaterThan(0));

  it.each(examples)('%s passes --validate', async (file) => {
    const report = await validateConfig(path.join(root, file), { cwd: root, env });
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.valid).toBe(true);
  });

  it('are all listed by listExamples, each with a description', () => {
    const listed = listExamples();
    expect(listed.map((e) => e.name)).toEqual(names);
    for (const example of listed) expect(example.description, example.name).not.toBe('');
  });

  it.each(names)('@examples/%s resolves to its file and passes --validate from any folder', async (name) => {
    const file = resolveExampleRef(`@examples/${name}`);
    expect(file).toBe(path.join(root, `${name}.yaml`));
    expect(resolveExampleRef(`@examples/${name}.yaml`)).toBe(file);
    const report = await validateConfig(file, { cwd: path.parse(root).root, env });
    expect(report.errors).toEqual([]);
    expect(report.valid).toBe(true);
  });
});

describe('the example library covers', () => {
  it('a single agent for every provider in examples/providers/', () => {
    const singles = names
      .filter((n) => n.startsWith('providers/'))
      .map((n) => {
        const data = raw(n);
        expect(data.agent, `${n} should use agent: (one agent)`).toBeDefined();
        const backend = data.agent!.backend;
        return backend.provider ? `${backend.type}/${backend.provider}` : backend.type;
      });
    for (const wanted of [
      'openai',
      'claude',
      'gemini',
      'grok',
      'azure_openai',
      'chatcompletion/groq',
      'chatcompletion/openrouter',
      'vllm',
      'sglang',
      'lmstudio',
      'ollama',
      'local',
    ]) {
      expect(singles, wanted).toContain(wanted);
    }
  });

  it('mixed three- and five-agent teams in examples/teams/', () => {
    const teams = names.filter((n) => n.startsWith('teams/'));
    const sizes = teams.map((n) => agentsOf(n).length);
    expect(sizes).toContain(3);
    expect(sizes).toContain(5);
    for (const team of teams) {
      const types = new Set(agentsOf(team).map((a) => `${a.backend.type}/${a.backend.provider ?? ''}`));
      expect(types.size, `${team} mixes providers`).toBe(agentsOf(team).length);
    }
  });

  it('local-only teams in examples/local/, one of them type: local', () => {
    const local = names.filter((n) => n.startsWith('local/'));
    const remote = ['openai', 'claude', 'gemini', 'grok', 'azure_openai', 'chatcompletion'];
    for (const name of local) {
      for (const agent of agentsOf(name)) expect(remote, name).not.toContain(agent.backend.type);
    }
    expect(local.some((n) => agentsOf(n).every((a) => a.backend.type === 'local'))).toBe(true);
  });

  it("the setup wizard's research, coding, Q&A and local-only presets", () => {
    expect(TEAM_PRESETS.map((p) => p.id)).toEqual(['research', 'coding', 'qa', 'local-only']);
    for (const preset of TEAM_PRESETS) expect(names).toContain(preset.example);
  });
});
