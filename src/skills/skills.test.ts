import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptProposedSkill,
  createLoadSkillTool,
  discoverSkills,
  listProposedSkills,
  parseSkill,
  skillsPrompt,
  writeProposedSkills,
  type Skill,
} from './index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'skills-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function skillFolder(root: string, name: string, text: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'SKILL.md'), text);
  return dir;
}

const where = (name: string) => ({ file: `/s/${name}/SKILL.md`, dir: `/s/${name}`, source: '/s' });

describe('parseSkill', () => {
  it('reads name, description and body; other front matter fields are accepted', () => {
    const { skill, problems } = parseSkill(
      '---\nname: pdf-tools\ndescription: "Fill PDF forms. Use for PDFs."\nlicense: MIT\nmetadata:\n  version: 1\n---\n\n# PDF\nSteps.\n',
      where('pdf-tools'),
    );
    expect(problems).toEqual([]);
    expect(skill).toMatchObject({
      name: 'pdf-tools',
      description: 'Fill PDF forms. Use for PDFs.',
      body: '# PDF\nSteps.',
    });
  });

  it('reports every problem with its line', () => {
    const { skill, problems } = parseSkill('---\nname: Other_Name\nfoo: 1\n---\n', where('pdf'));
    expect(skill).toBeUndefined();
    expect(problems.map((p) => [p.line, p.message.split(' ')[0]])).toEqual([
      [2, 'name:'],
      [2, 'description:'],
      [5, 'the'],
    ]);
    expect(parseSkill('---\nname: other\ndescription: d\n---\nbody', where('pdf')).problems[0]).toMatchObject(
      {
        line: 2,
        message: 'name: "other" must match its folder\'s name "pdf"',
      },
    );
  });

  it('says what is wrong with the front matter itself', () => {
    expect(parseSkill('# no front matter', where('x')).problems[0]?.message).toMatch(
      /must start with YAML front matter/,
    );
    expect(parseSkill('---\nname: x\n', where('x')).problems[0]?.message).toMatch(/not closed/);
    const bad = parseSkill('---\nname: x\ndescription: [unclosed\n---\nbody', where('x')).problems;
    expect(bad[0]?.message).toMatch(/^front matter: /);
    expect(bad[0]?.line).toBeGreaterThanOrEqual(3);
  });
});

describe('discoverSkills', () => {
  it('finds skill folders (or a folder that is a skill), keeps the first of a name, and reports the malformed', () => {
    const team = tempDir();
    const mine = tempDir();
    skillFolder(team, 'alpha', '---\nname: alpha\ndescription: team alpha\n---\nA');
    skillFolder(team, 'broken', '---\nname: broken\n---\nB');
    mkdirSync(path.join(team, 'not-a-skill'));
    const own = skillFolder(mine, 'alpha', '---\nname: alpha\ndescription: my alpha\n---\nA');
    const found = discoverSkills([own, team, path.join(team, 'missing')]);
    expect(found.skills.map((s) => [s.name, s.description])).toEqual([['alpha', 'my alpha']]);
    expect(found.problems.map((p) => p.file)).toEqual([
      path.join(team, 'alpha', 'SKILL.md'),
      path.join(team, 'broken', 'SKILL.md'),
    ]);
    expect(found.missing).toEqual([path.join(team, 'missing')]);
  });
});

describe('skillsPrompt', () => {
  const skill = (n: number): Skill => ({
    name: `skill-${n}`,
    description: `does thing ${n}`,
    body: 'BODY',
    dir: `/s/skill-${n}`,
    source: '/s',
  });

  it('lists names and descriptions, never bodies, within the budget', () => {
    const text = skillsPrompt([skill(1), skill(2)]);
    expect(text).toContain('- skill-1: does thing 1\n- skill-2: does thing 2');
    expect(text).not.toContain('BODY');
    const small = skillsPrompt(
      Array.from({ length: 50 }, (_, i) => skill(i)),
      { budget: 600 },
    );
    expect(small.length).toBeLessThanOrEqual(700);
    expect(small).toMatch(/- \(\d+ more skills not listed: over the prompt budget\)$/);
  });

  it('asks for a proposed skill only with evolve', () => {
    expect(skillsPrompt([skill(1)])).not.toContain('<proposed-skill>');
    expect(skillsPrompt([skill(1)], { evolve: true })).toContain('<proposed-skill>');
    expect(skillsPrompt([], { evolve: true })).toMatch(/^If your final answer/);
  });
});

describe('load_skill', () => {
  it('returns the instructions, the files and the folder; reads a file; refuses paths outside the skill', async () => {
    const root = tempDir();
    const dir = skillFolder(root, 'probe', '---\nname: probe\ndescription: d\n---\nThe body.');
    mkdirSync(path.join(dir, 'scripts'));
    writeFileSync(path.join(dir, 'scripts', 'run.sh'), 'echo hi\n');
    writeFileSync(path.join(root, 'secret.txt'), 'secret');
    symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'link.txt'));
    const { skills } = discoverSkills([root]);
    const tool = createLoadSkillTool(skills, (s) => `/run/skills/${s.name}`);
    const context = { agentId: 'a', phase: 'coordination' as const, signal: new AbortController().signal };
    const whole = String(await tool.execute({ name: 'probe' }, context));
    expect(whole).toContain('Folder: /run/skills/probe');
    expect(whole).toContain('- scripts/run.sh');
    expect(whole).toContain('The body.');
    expect(await tool.execute({ name: 'probe', file: 'scripts/run.sh' }, context)).toBe('echo hi\n');
    await expect(async () => tool.execute({ name: 'probe', file: '../secret.txt' }, context)).rejects.toThrow(
      /outside the skill/,
    );
    await expect(async () => tool.execute({ name: 'probe', file: 'link.txt' }, context)).rejects.toThrow(
      /outside the skill/,
    );
    await expect(async () => tool.execute({ name: 'nope' }, context)).rejects.toThrow(
      /no skill named "nope"/,
    );
    expect(tool.annotations?.readOnly).toBe(true);
  });
});

describe('proposed skills', () => {
  it('writes valid proposals, skips malformed ones, and accepts one into a skills folder', () => {
    const project = tempDir();
    const answer = [
      'Done.',
      '<proposed-skill>',
      '---\nname: csv-report\ndescription: CSV to report.\n---\n# Steps\nCount rows.',
      '</proposed-skill>',
      '<proposed-skill>',
      '---\nname: no-description\n---\nbody',
      '</proposed-skill>',
    ].join('\n');
    const { written, problems } = writeProposedSkills(project, answer);
    expect(written).toEqual(['csv-report']);
    expect(problems[0]?.message).toMatch(/description: is missing/);
    expect(listProposedSkills(project)).toEqual(['csv-report']);
    const target = path.join(project, 'skills');
    expect(acceptProposedSkill(project, 'csv-report', target)).toBe(path.join(target, 'csv-report'));
    expect(listProposedSkills(project)).toEqual([]);
    expect(discoverSkills([target]).skills.map((s) => s.name)).toEqual(['csv-report']);
    expect(() => acceptProposedSkill(project, 'csv-report', target)).toThrow(
      /no proposed skill "csv-report"/,
    );
  });
});
