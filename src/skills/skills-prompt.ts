import type { Skill } from './skill-file.js';

/** The default most characters the skills list may add to a system prompt. */
export const DEFAULT_SKILLS_PROMPT_CHARS = 4000;
/** A description longer than this is cut in the list (load_skill gives all of it). */
const DESCRIPTION_CHARS = 300;

/** The fenced tag a winning answer wraps a proposed `SKILL.md` in (`skills: { evolve: true }`). */
export const PROPOSED_SKILL_TAG = 'proposed-skill';

/**
 * The system prompt's skills section: one line per skill (name and description), within `budget`
 * characters — skills that do not fit are counted, not listed. Bodies are never included: the agent
 * reads one with `load_skill` when it needs it.
 */
export function skillsPrompt(
  skills: readonly Skill[],
  options: { budget?: number; evolve?: boolean } = {},
): string {
  const budget = options.budget ?? DEFAULT_SKILLS_PROMPT_CHARS;
  const head = [
    '## Skills',
    'Skills are folders of instructions and scripts for particular tasks. When a task matches a skill, call load_skill with its name first: it returns the instructions, the files and the folder where the scripts are (run them with execute_command). Do not load skills you do not need.',
  ].join('\n');
  const lines: string[] = [];
  let used = head.length;
  let left = 0;
  for (const skill of skills) {
    const description =
      skill.description.length > DESCRIPTION_CHARS
        ? `${skill.description.slice(0, DESCRIPTION_CHARS - 1)}…`
        : skill.description;
    const line = `- ${skill.name}: ${description.replace(/\s+/g, ' ')}`;
    if (used + line.length + 1 > budget) {
      left += 1;
      continue;
    }
    lines.push(line);
    used += line.length + 1;
  }
  if (left > 0)
    lines.push(`- (${left} more skill${left === 1 ? '' : 's'} not listed: over the prompt budget)`);
  const evolve = options.evolve
    ? `\n\nIf your final answer worked out a reusable procedure that no skill covers, you may propose a new skill at the end of your final answer: a complete SKILL.md (front matter with name: and description:, then the instructions) between <${PROPOSED_SKILL_TAG}> and </${PROPOSED_SKILL_TAG}> lines. The user decides whether to keep it.`
    : '';
  if (skills.length === 0) return evolve.trim();
  return `${head}\n${lines.join('\n')}${evolve}`;
}
