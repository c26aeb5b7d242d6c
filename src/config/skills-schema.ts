import { z } from 'zod';

/** What `skills:` becomes: the folders in priority order, and whether answers may propose new skills. */
export interface SkillsSettings {
  /** Folders holding skills (each a folder with a `SKILL.md`), relative to the config file; `~` is the home. */
  paths: string[];
  /** A winning answer may propose a new skill (written to `.massgen/proposed-skills/`). */
  evolve: boolean;
  /** The most characters the skills list may add to each agent's system prompt. */
  prompt_budget_chars: number;
}

const SkillsObjectSchema = z.strictObject({
  paths: z.array(z.string().min(1)).default(() => []),
  /** Off by default: a winning answer may propose a new SKILL.md for the user to accept. */
  evolve: z.boolean().default(false),
  prompt_budget_chars: z.int().min(200).default(4000),
});

/**
 * Agent Skills (docs/skills.md), team-wide: a list of folders, or `{ paths, evolve, prompt_budget_chars }`.
 * Normalised to the object form.
 */
export const SkillsConfigSchema = z
  .union([z.array(z.string().min(1)), SkillsObjectSchema])
  .transform((value): SkillsSettings =>
    Array.isArray(value) ? { paths: value, evolve: false, prompt_budget_chars: 4000 } : value,
  );

/** One agent's own skills folders, added to the team's (`agents[].skills`). */
export const AgentSkillsSchema = z.array(z.string().min(1));
