import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildAgentSpecs } from '../app/build-agents.js';
import { loadConfigBackends } from '../backends/registry.js';
import { testRunContext } from '../capability/run-context.test-support.js';
import { parseConfig } from '../config/index.js';
import { skillsCapability } from './capability.js';
import { loadRunSkills, resolveSkillsFolder, saveProposedSkills } from './run-skills.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-skills-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function skill(root: string, name: string, description: string) {
  mkdirSync(path.join(root, name), { recursive: true });
  writeFileSync(
    path.join(root, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.`,
  );
}

const agent = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  backend: { type: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test' },
  ...extra,
});

describe('Agent Skills in a run', () => {
  it('resolves folders beside the config, then in the project, and ~ in the home', () => {
    const base = tempDir();
    const project = tempDir();
    mkdirSync(path.join(project, '.agent', 'skills'), { recursive: true });
    const where = { baseDir: base, projectDir: project, home: '/home/u' };
    expect(resolveSkillsFolder('.agent/skills', where)).toBe(path.join(project, '.agent', 'skills'));
    expect(resolveSkillsFolder('./skills', where)).toBe(path.join(base, 'skills'));
    expect(resolveSkillsFolder('~/.config/massgen/skills', where)).toBe('/home/u/.config/massgen/skills');
  });

  it("takes no skills from an untrusted working folder's .agent/skills, and says so once", () => {
    const base = tempDir();
    const project = tempDir();
    skill(path.join(project, '.agent', 'skills'), 'planted', 'from a cloned repository');
    const config = parseConfig({ skills: ['.agent/skills'], agents: [agent('a'), agent('b')] }, { env: {} });
    const where = { baseDir: base, projectDir: project, home: base };

    const untrusted = loadRunSkills(config, { ...where, projectTrusted: false })!;
    expect(untrusted.byAgent.get('a')).toEqual([]);
    expect(untrusted.warnings.map((w) => w.code)).toEqual(['skills_folder_untrusted']);
    expect(untrusted.warnings[0]?.message).toContain(path.join(project, '.agent', 'skills'));
    expect(untrusted.warnings[0]?.message).toContain('massgen trust');

    const trusted = loadRunSkills(config, { ...where, projectTrusted: true })!;
    expect(trusted.byAgent.get('a')!.map((s) => s.name)).toEqual(['planted']);
    expect(trusted.warnings).toEqual([]);
  });

  it("gives each agent its own folders first, then the team's, and warns once per malformed file", () => {
    const base = tempDir();
    skill(path.join(base, 'team'), 'shared', 'team skill');
    skill(path.join(base, 'team'), 'mine', 'team version');
    skill(path.join(base, 'own'), 'mine', 'own version');
    mkdirSync(path.join(base, 'team', 'bad'));
    writeFileSync(path.join(base, 'team', 'bad', 'SKILL.md'), 'no front matter');
    const config = parseConfig(
      {
        skills: ['./team', './missing', '~/absent'],
        agents: [agent('a', { skills: ['./own'] }), agent('b')],
      },
      { env: {} },
    );
    const skills = loadRunSkills(config, { baseDir: base, projectDir: base, home: base })!;
    const described = (id: string) => skills.byAgent.get(id)!.map((s) => `${s.name}: ${s.description}`);
    expect(described('a')).toEqual(['mine: own version', 'shared: team skill']);
    expect(described('b')).toEqual(['mine: team version', 'shared: team skill']);
    const messages = skills.warnings.map((w) => w.message);
    expect(messages.filter((m) => m.includes(path.join(base, 'team', 'bad', 'SKILL.md')))).toHaveLength(1);
    expect(messages.filter((m) => m.includes('does not exist'))).toEqual([
      `the skills folder ${path.join(base, 'missing')} does not exist: no skills from it`,
    ]);
    // a sees that the team's "mine" is shadowed by its own.
    expect(
      messages.some((m) =>
        /skipped the skill in .*team\/mine\/SKILL.md: line 1: skill "mine" is also in/.test(m),
      ),
    ).toBe(true);
  });

  it('puts names and descriptions (not bodies) into the system prompt and offers load_skill', async () => {
    const base = tempDir();
    skill(path.join(base, 'skills'), 'probe', 'Probes things.');
    const config = parseConfig(
      { skills: ['./skills'], agents: [agent('a', { system_message: 'Be brief.' })] },
      { env: {} },
    );
    const skills = await (
      await skillsCapability.load()
    ).prepare(testRunContext(config, { baseDir: base, cwd: base }));
    await loadConfigBackends(config);
    const [spec] = buildAgentSpecs(
      config,
      { OPENAI_API_KEY: 'sk-test' },
      { custom: [[]], baseDir: base, parts: [skills] },
    );
    expect(spec?.systemMessage).toMatch(/^Be brief\.\n\n## Skills\n/);
    expect(spec?.systemMessage).toContain('- probe: Probes things.');
    expect(spec?.systemMessage).not.toContain('Body of probe');
    expect(spec?.tools?.list({ agentId: 'a', phase: 'coordination' }).map((d) => d.name)).toContain(
      'load_skill',
    );
  });

  it('is off without skills folders, and saves proposals only from a completed run', () => {
    expect(
      loadRunSkills(parseConfig({ agents: [agent('a')] }, { env: {} }), { baseDir: '/', projectDir: '/' }),
    ).toBeNull();
    const project = tempDir();
    const answer = '<proposed-skill>\n---\nname: new-one\ndescription: d\n---\nbody\n</proposed-skill>';
    expect(saveProposedSkills(project, { status: 'failed', finalAnswer: answer }, null)).toEqual([]);
    expect(saveProposedSkills(project, { status: 'completed', finalAnswer: answer }, null)).toEqual([
      'new-one',
    ]);
  });
});
