import type { CapabilityParts, CapabilityProblems, ConfigPlace, RunContext } from '../capability/index.js';
import type { MassGenConfig } from '../config/index.js';
import { loadRunSkills, saveProposedSkills } from './run-skills.js';
import { skillsToolProvider } from './skills-tool-provider.js';
import { skillsPrompt } from './skills-prompt.js';

/** Finds every agent's skills and says what they add to a run. */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const skills = loadRunSkills(run.config, {
    baseDir: run.baseDir,
    projectDir: run.cwd,
    projectTrusted: run.projectTrusted,
  });
  if (!skills) return {};
  const { byAgent, evolve, promptBudget } = skills;
  const of = (agentId: string) => byAgent.get(agentId) ?? [];
  return {
    // load_skill comes first, and its sandbox (with the skill folders) is what the other tools see.
    equip: ({ agent, sandbox }) => {
      if (of(agent.id).length === 0) return undefined;
      const equipped = skillsToolProvider(of(agent.id), sandbox);
      return { first: [equipped.provider], ...(equipped.sandbox ? { sandbox: equipped.sandbox } : {}) };
    },
    prompt: (agentId, message) => {
      if (of(agentId).length === 0 && !evolve) return message;
      const list = skillsPrompt(of(agentId), { budget: promptBudget, evolve });
      return message ? `${message.trim()}\n\n${list}` : list;
    },
    warnings: skills.warnings,
    ...(evolve
      ? {
          finish: async ({ finished, workspaceDir }) => {
            const proposed = saveProposedSkills(run.cwd, finished, workspaceDir);
            return proposed.length > 0 ? { proposedSkills: proposed } : {};
          },
        }
      : {}),
  };
}

/** `--validate`: a malformed `SKILL.md` or a missing folder is a warning, as at the start of a run. */
export function problems(config: MassGenConfig, place: ConfigPlace): CapabilityProblems {
  const skills = loadRunSkills(config, { baseDir: place.baseDir, projectDir: place.projectDir });
  return { warnings: (skills?.warnings ?? []).map((w) => ({ path: w.key ?? '', message: w.message })) };
}
