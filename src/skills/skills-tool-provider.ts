import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import { createLoadSkillTool, SKILLS_MOUNT } from './load-skill-tool.js';
import type { Skill } from './skill-file.js';
import { customToolProvider } from '../tools/custom/index.js';
import type { ToolProvider } from '../tools/tool-provider.js';

/**
 * An agent's `load_skill` tool, and its sandbox with every skill folder shown read-only at
 * `/run/skills/<name>` — so a skill's scripts run through `execute_command` inside the sandbox like any
 * other command. Where commands are not in the OS sandbox (`execution_mode: local`, or no bubblewrap),
 * `load_skill` names the skill's real folder instead.
 */
export function skillsToolProvider(
  skills: readonly Skill[],
  sandbox: AgentSandbox | undefined,
): { provider: ToolProvider; sandbox: AgentSandbox | undefined } {
  const mounted =
    sandbox?.bwrap != null && sandbox.commands === 'sandbox' && existsSync(path.dirname(SKILLS_MOUNT));
  const folderOf = (skill: Skill) => (mounted ? path.posix.join(SKILLS_MOUNT, skill.name) : skill.dir);
  const provider = customToolProvider([createLoadSkillTool(skills, folderOf)], 'skills');
  if (!mounted || !sandbox) return { provider, sandbox };
  const mounts = skills.map((s) => ({ source: s.dir, target: folderOf(s) }));
  const layout = sandbox.layout;
  return {
    provider,
    sandbox: {
      ...sandbox,
      layout: (phase) => {
        const base = layout(phase);
        return { ...base, mounts: [...(base.mounts ?? []), ...mounts] };
      },
    },
  };
}
