import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { HooksConfigSchema } from '../config/hooks-schema.js';
import { PROJECT_HOOKS_DIR } from '../config/project-trust.js';
import { ConfigError } from '../types/errors.js';
import { emptyHookSet, hookSetOf, joinHookSets, type HookSet } from './hook-set.js';

/**
 * `.massgen/hooks/*.json` of the run's folder: each file a Claude Code settings object
 * (`{"hooks": {"PreToolUse": […]}}`), so a project's `.claude/settings.json` hooks can be copied in as
 * they are. Read only for a folder the user trusts (the caller decides; the folder's digest is part of
 * the trust record, so an edited hook asks again).
 */

const ProjectHooksFileSchema = z.looseObject({ hooks: HooksConfigSchema });

/** The project's hook files, relative to `cwd`, sorted; empty without the folder. */
export function projectHookFiles(cwd: string): string[] {
  try {
    return readdirSync(path.join(cwd, PROJECT_HOOKS_DIR))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => path.join(PROJECT_HOOKS_DIR, name));
  } catch {
    return [];
  }
}

/**
 * The hooks of every file in `files` (relative to `cwd`), each labelled with its file.
 * @throws {ConfigError} naming the file and key of the first problem.
 */
export function loadProjectHooks(cwd: string, files: readonly string[]): HookSet {
  const sets = files.map((rel) => {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path.join(cwd, rel), 'utf8'));
    } catch (error) {
      throw new ConfigError(`${rel}: not readable JSON (${(error as Error).message})`, {
        hint: 'write {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}}',
      });
    }
    const parsed = ProjectHooksFileSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const key = issue.path.join('.');
      throw new ConfigError(`${rel}: ${key === '' ? '' : `${key}: `}${issue.message}`, {
        hint: 'see docs/hooks.md for the format (Claude Code settings: {"hooks": {…}})',
      });
    }
    return hookSetOf(parsed.data.hooks, `${rel}: hooks`);
  });
  return sets.length === 0 ? emptyHookSet() : joinHookSets(...sets);
}
