import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { parseSkill, readSkill, type SkillProblem } from './skill-file.js';
import { PROPOSED_SKILL_TAG } from './skills-prompt.js';

/** Where proposed skills wait for the user: `<project>/.massgen/proposed-skills/<name>/`. */
export const proposedSkillsDir = (projectDir: string): string =>
  path.join(projectDir, '.massgen', 'proposed-skills');

const BLOCK = new RegExp(
  `<${PROPOSED_SKILL_TAG}>[ \\t]*\\r?\\n([\\s\\S]*?)\\r?\\n[ \\t]*</${PROPOSED_SKILL_TAG}>`,
  'g',
);

/** The `SKILL.md` texts proposed in an answer, in order. */
export function proposedSkillTexts(answer: string): string[] {
  return [...answer.matchAll(BLOCK)].map((m) => `${m[1]!.trim()}\n`);
}

/**
 * Writes the skills an answer proposes to `.massgen/proposed-skills/<name>/SKILL.md` (replacing an
 * earlier proposal of the same name). A malformed proposal is not written: its problems come back.
 */
export function writeProposedSkills(
  projectDir: string,
  answer: string,
): { written: string[]; problems: SkillProblem[] } {
  const written: string[] = [];
  const problems: SkillProblem[] = [];
  for (const text of proposedSkillTexts(answer)) {
    const name = /^name:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(text)?.[1] ?? '';
    const valid = /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
    const dir = path.join(proposedSkillsDir(projectDir), valid ? name : 'unnamed');
    const parsed = parseSkill(text, { file: `proposed skill ${name || '(unnamed)'}`, dir, source: '' });
    if (!parsed.skill || !valid) {
      problems.push(...parsed.problems);
      continue;
    }
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), text);
    written.push(name);
  }
  return { written, problems };
}

/**
 * A skill folder an agent wrote (MassGen's evolving skill: `tasks/evolving_skill/` in the winner's
 * workspace), copied with its scripts to `.massgen/proposed-skills/<name>/`: its name, or null when
 * there is none or it is malformed.
 */
export function proposeSkillFolder(projectDir: string, folder: string): string | null {
  let text: string;
  try {
    text = readFileSync(path.join(folder, 'SKILL.md'), 'utf8');
  } catch {
    return null;
  }
  const name = /^name:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(text)?.[1] ?? '';
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return null;
  const dir = path.join(proposedSkillsDir(projectDir), name);
  if (!parseSkill(text, { file: path.join(folder, 'SKILL.md'), dir, source: '' }).skill) return null;
  rmSync(dir, { recursive: true, force: true });
  cpSync(folder, dir, { recursive: true });
  return name;
}

/** The names of the skills waiting in `.massgen/proposed-skills/`. */
export function listProposedSkills(projectDir: string): string[] {
  const root = proposedSkillsDir(projectDir);
  try {
    return readdirSync(root)
      .filter((n) => existsSync(path.join(root, n, 'SKILL.md')))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Moves a proposed skill into `skillsFolder` (after checking it again). Throws an `Error` whose message
 * says what is wrong: no such proposal, a malformed one, or a skill of that name already there.
 */
export function acceptProposedSkill(projectDir: string, name: string, skillsFolder: string): string {
  const from = path.join(proposedSkillsDir(projectDir), name);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || !existsSync(path.join(from, 'SKILL.md'))) {
    const waiting = listProposedSkills(projectDir);
    throw new Error(
      `no proposed skill "${name}" in ${proposedSkillsDir(projectDir)}${waiting.length > 0 ? ` (proposed: ${waiting.join(', ')})` : ''}`,
    );
  }
  const read = readSkill(from);
  if (!read.skill) throw new Error(read.problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n'));
  const to = path.join(skillsFolder, name);
  if (existsSync(to)) throw new Error(`${to} exists already: remove it first to replace it`);
  mkdirSync(skillsFolder, { recursive: true });
  try {
    renameSync(from, to);
  } catch {
    // Another file system: copy, then remove.
    cpSync(from, to, { recursive: true });
    rmSync(from, { recursive: true, force: true });
  }
  return to;
}
