import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readSkill, type Skill, type SkillProblem } from './skill-file.js';

/** What discovery found in some skills folders. */
export interface DiscoveredSkills {
  /** Valid skills, by name; a name found twice keeps the first folder's. */
  skills: Skill[];
  /** Every malformed `SKILL.md` (the skill is left out) and every duplicate name. */
  problems: SkillProblem[];
  /** Configured folders that do not exist. */
  missing: string[];
}

/** The skill folders in `folder`: itself when it holds a `SKILL.md`, else each subfolder holding one. */
export function skillDirsIn(folder: string): string[] {
  if (existsSync(path.join(folder, 'SKILL.md'))) return [folder];
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.startsWith('.'))
    .map((n) => path.join(folder, n))
    .filter((dir) => {
      try {
        return statSync(dir).isDirectory() && existsSync(path.join(dir, 'SKILL.md'));
      } catch {
        return false;
      }
    });
}

/** Finds and reads every skill in `folders` (absolute paths, in priority order). */
export function discoverSkills(folders: readonly string[]): DiscoveredSkills {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const missing: string[] = [];
  const byName = new Map<string, Skill>();
  for (const folder of [...new Set(folders)]) {
    if (!existsSync(folder)) {
      missing.push(folder);
      continue;
    }
    for (const dir of skillDirsIn(folder)) {
      const read = readSkill(dir, folder);
      problems.push(...read.problems);
      if (!read.skill) continue;
      const first = byName.get(read.skill.name);
      if (first) {
        if (first.dir !== read.skill.dir)
          problems.push({
            file: path.join(dir, 'SKILL.md'),
            line: 1,
            message: `skill "${read.skill.name}" is also in ${first.dir}, which is used instead`,
          });
        continue;
      }
      byName.set(read.skill.name, read.skill);
      skills.push(read.skill);
    }
  }
  return { skills, problems, missing };
}
