export { discoverSkills, skillDirsIn, type DiscoveredSkills } from './discover-skills.js';
export { createLoadSkillTool, skillFiles, SKILLS_MOUNT } from './load-skill-tool.js';
export {
  acceptProposedSkill,
  listProposedSkills,
  proposeSkillFolder,
  proposedSkillsDir,
  proposedSkillTexts,
  writeProposedSkills,
} from './proposed-skills.js';
export { formatSkillProblem, parseSkill, readSkill, type Skill, type SkillProblem } from './skill-file.js';
export { DEFAULT_SKILLS_PROMPT_CHARS, PROPOSED_SKILL_TAG, skillsPrompt } from './skills-prompt.js';
