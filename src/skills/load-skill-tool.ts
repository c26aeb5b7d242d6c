import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Skill } from './skill-file.js';
import { defineTool, type Tool } from '../tools/define-tool.js';
import { ToolError } from '../types/errors.js';

/** Where skills appear inside an agent's OS sandbox: `/run/skills/<name>`, read-only. */
export const SKILLS_MOUNT = '/run/skills';
const MAX_FILES = 200;
const MAX_FILE_CHARS = 100_000;

/** The files of a skill folder, relative, sorted; links are listed but not followed. */
export function skillFiles(dir: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(dir, rel)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= MAX_FILES) return;
      const relative = rel === '' ? name : `${rel}/${name}`;
      const info = lstatSync(path.join(dir, relative));
      if (info.isDirectory()) visit(relative);
      else out.push(relative);
    }
  };
  visit('');
  return out;
}

/** A file of the skill, refusing anything outside its folder (`..`, absolute paths, links out). */
function readSkillFile(skill: Skill, file: string): string {
  const root = realpathSync(skill.dir);
  const target = path.resolve(root, file);
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    throw new ToolError(`skill "${skill.name}" has no file "${file}"`, {
      hint: `its files: ${skillFiles(skill.dir).join(', ')}`,
    });
  }
  const relative = path.relative(root, real);
  if (relative.startsWith('..') || path.isAbsolute(relative))
    throw new ToolError(`"${file}" is outside the skill "${skill.name}"`);
  if (lstatSync(real).isDirectory())
    throw new ToolError(`"${file}" is a folder of skill "${skill.name}"; name one of its files`);
  const text = readFileSync(real, 'utf8');
  return text.length > MAX_FILE_CHARS
    ? `${text.slice(0, MAX_FILE_CHARS)}\n[cut at ${MAX_FILE_CHARS} characters]`
    : text;
}

/**
 * The `load_skill` tool over `skills`: without `file`, the skill's `SKILL.md` instructions, its files
 * and where its folder is for commands (`folderOf`: the sandbox path, or the real one unsandboxed);
 * with `file`, that file's text. Read-only, so planning mode lets it run.
 */
export function createLoadSkillTool(skills: readonly Skill[], folderOf: (skill: Skill) => string): Tool {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const names = skills.map((s) => s.name).join(', ');
  return defineTool({
    name: 'load_skill',
    description: `Loads a skill listed in your instructions: its full instructions, its files and the folder its scripts run from. With "file", returns that file of the skill instead. Skills: ${names}.`,
    readOnly: true,
    parameters: z.object({
      name: z.string().min(1).describe('the skill name, as listed'),
      file: z
        .string()
        .min(1)
        .optional()
        .describe('a file of the skill, relative to its folder, e.g. scripts/run.py'),
    }),
    execute: ({ name, file }) => {
      const skill = byName.get(name);
      if (!skill) throw new ToolError(`no skill named "${name}"`, { hint: `skills: ${names}` });
      if (file !== undefined) return readSkillFile(skill, file);
      const folder = folderOf(skill);
      return [
        `# Skill: ${skill.name}`,
        `Folder: ${folder} (read-only; run its scripts with execute_command by their full path, e.g. ${folder}/scripts/…, from your workspace, where their output belongs)`,
        `Files (read one with load_skill and "file"):`,
        ...skillFiles(skill.dir).map((f) => `- ${f}`),
        '',
        skill.body,
      ].join('\n');
    },
  });
}
