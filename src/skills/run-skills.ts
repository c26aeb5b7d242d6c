import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfigFile, type MassGenConfig } from '../config/index.js';
import type { RunWarning } from '../types/events.js';
import { configUsesSkills } from './capability.js';
import { discoverSkills } from './discover-skills.js';
import { proposeSkillFolder, writeProposedSkills } from './proposed-skills.js';
import { formatSkillProblem, type Skill, type SkillProblem } from './skill-file.js';

/**
 * Agent Skills for a run (docs/skills.md): the configured folders resolved, each agent's skills (its
 * own folders first, then the team's), and a warning per malformed `SKILL.md` — the run goes on
 * without that skill.
 */
export interface RunSkills {
  byAgent: ReadonlyMap<string, readonly Skill[]>;
  evolve: boolean;
  promptBudget: number;
  warnings: RunWarning[];
}

/** Where skills folders are resolved; `projectTrusted: false` for a working folder the user has not trusted. */
interface SkillsPlace {
  baseDir: string;
  projectDir: string;
  home?: string;
  projectTrusted?: boolean;
}

/**
 * A configured skills folder as a path: `~` is the home, a relative path is relative to the config
 * file's folder — or, when nothing is there, to the working folder (MassGen's configs name
 * `.agent/skills` from where MassGen runs), unless the working folder is not trusted.
 */
export function resolveSkillsFolder(folder: string, where: SkillsPlace): string {
  const home = where.home ?? os.homedir();
  if (folder === '~') return home;
  if (folder.startsWith('~/')) return path.join(home, folder.slice(2));
  if (path.isAbsolute(folder)) return folder;
  const beside = path.resolve(where.baseDir, folder);
  if (existsSync(beside) || where.projectTrusted === false) return beside;
  const project = path.resolve(where.projectDir, folder);
  return existsSync(project) ? project : beside;
}

/** One warning per malformed file, naming it, with every problem found in it. */
export function skillWarnings(problems: readonly SkillProblem[]): RunWarning[] {
  const byFile = new Map<string, SkillProblem[]>();
  for (const p of problems) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p]);
  return [...byFile.values()].map((list) => ({
    code: 'skill_invalid',
    message: `skipped the skill in ${list[0]!.file}: ${list.map((p) => `line ${p.line}: ${p.message}`).join('; ')} (check it with: massgen skills validate)`,
  }));
}

/** Discovers every agent's skills; null when the config names no skills folders at all. */
export function loadRunSkills(config: MassGenConfig, where: SkillsPlace): RunSkills | null {
  const team = config.skills?.paths ?? [];
  if (!configUsesSkills(config)) return null;
  const warnings: RunWarning[] = [];
  const warnedUntrusted = new Set<string>();
  const resolve = (folder: string) => {
    const found = resolveSkillsFolder(folder, where);
    const ifTrusted = resolveSkillsFolder(folder, { ...where, projectTrusted: true });
    if (ifTrusted !== found && !warnedUntrusted.has(ifTrusted)) {
      warnedUntrusted.add(ifTrusted);
      warnings.push({
        code: 'skills_folder_untrusted',
        message: `the skills folder ${ifTrusted} is not used: the working folder is not trusted (review it with massgen trust)`,
      });
    }
    return found;
  };
  const seenProblems = new Set<string>();
  const warnedMissing = new Set<string>();
  const byAgent = new Map<string, readonly Skill[]>();
  config.agents.forEach((agent, index) => {
    const entries = [
      ...(agent.skills ?? []).map((f, i) => ({ folder: f, key: `agents[${index}].skills[${i}]` })),
      ...team.map((f) => ({ folder: f, key: 'skills' })),
    ];
    const found = discoverSkills(entries.map((e) => resolve(e.folder)));
    for (const missing of found.missing) {
      const entry = entries.find((e) => resolve(e.folder) === missing)!;
      // A folder in the home (`~/.config/massgen/skills`) is optional: absent is normal.
      if (entry.folder.startsWith('~') || warnedMissing.has(missing)) continue;
      // There in the working folder, left out as untrusted: said once above.
      if (resolveSkillsFolder(entry.folder, { ...where, projectTrusted: true }) !== missing) continue;
      warnedMissing.add(missing);
      warnings.push({
        code: 'skills_folder_missing',
        key: entry.key,
        message: `the skills folder ${missing} does not exist: no skills from it`,
      });
    }
    const fresh = found.problems.filter((p) => !seenProblems.has(formatSkillProblem(p)));
    for (const p of fresh) seenProblems.add(formatSkillProblem(p));
    warnings.push(...skillWarnings(fresh));
    byAgent.set(agent.id, found.skills);
  });
  return {
    byAgent,
    evolve: config.skills?.evolve ?? false,
    promptBudget: config.skills?.prompt_budget_chars ?? 4000,
    warnings,
  };
}

/**
 * `skills: { evolve: true }`: the skills a completed run's final answer proposes (in `<proposed-skill>`
 * blocks), and MassGen's evolving skill folder (`tasks/evolving_skill/`) in the winner's workspace,
 * written to `.massgen/proposed-skills/<name>/` for `massgen skills accept`. Their names; a malformed
 * proposal is left out.
 */
export function saveProposedSkills(
  projectDir: string,
  finished: { status: string; finalAnswer: string | null } | null,
  workspaceDir: string | null,
): string[] {
  if (finished?.status !== 'completed' || !finished.finalAnswer) return [];
  try {
    const { written } = writeProposedSkills(projectDir, finished.finalAnswer);
    const folder = workspaceDir
      ? proposeSkillFolder(projectDir, path.join(workspaceDir, 'tasks', 'evolving_skill'))
      : null;
    return [...new Set([...written, ...(folder ? [folder] : [])])];
  } catch {
    return [];
  }
}

/** The skills folders a config file names (team-wide, then each agent's), resolved; empty when none. */
export function configuredSkillsFolders(
  file: string,
  where: { cwd: string; env: Readonly<Record<string, string | undefined>>; home?: string },
): string[] {
  const config = loadConfigFile(file, { env: where.env, cwd: where.cwd });
  const place = {
    baseDir: path.dirname(file),
    projectDir: where.cwd,
    ...(where.home ? { home: where.home } : {}),
  };
  const names = [...(config.skills?.paths ?? []), ...config.agents.flatMap((a) => a.skills ?? [])];
  return [...new Set(names.map((n) => resolveSkillsFolder(n, place)))];
}
