import { chmodSync, cpSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import type { Write } from '../app/plain-display.js';
import { ConfigError, ExitCode } from '../types/errors.js';
import { packagePath } from '../util/package-root.js';

/** The coding agents whose skills folders `massgen skill install` knows. */
export type SkillTarget = 'claude' | 'codex' | 'gemini';

/**
 * Where each agent looks for skills (each tool's documented folders): `project` relative to the
 * project folder, `user` relative to the home folder. Codex reads the Agent Skills standard's
 * `.agents/skills` (Gemini CLI reads it too, as an alias of `.gemini/skills`).
 */
export const SKILL_FOLDERS: Readonly<Record<SkillTarget, { project: string; user: string }>> = {
  claude: { project: '.claude/skills', user: '.claude/skills' },
  codex: { project: '.agents/skills', user: '.agents/skills' },
  gemini: { project: '.gemini/skills', user: '.gemini/skills' },
};

/** `massgen skill …`'s command line. */
export interface SkillOptions {
  action: 'install' | 'path';
  target: SkillTarget;
  user: boolean;
  /** Install under this folder instead (its `massgen/` subfolder). */
  dir?: string;
}

/** Parses `massgen skill install|path …`. */
export function parseSkillArgs(argv: readonly string[]): SkillOptions {
  let action: SkillOptions['action'] = 'install';
  const program = new Command('massgen skill')
    .description(
      'The massgen Agent Skill: teaches a coding agent when and how to run a massgen team. (The skills massgen’s own agents use are managed with massgen skills.)',
    )
    .argument('<action>', 'install (copy it to a coding agent’s skills folder) or path (print where it is)')
    .addOption(
      new Option('--target <agent>', 'the coding agent whose folder to use')
        .choices(['claude', 'codex', 'gemini'])
        .default('claude'),
    )
    .addOption(
      new Option('--project', 'this project’s folder, e.g. ./.claude/skills (default)').conflicts('user'),
    )
    .addOption(new Option('--user', 'your home folder’s, e.g. ~/.claude/skills').default(false))
    .option('--dir <folder>', 'install into FOLDER/massgen instead')
    .addHelpText(
      'after',
      `
Folders (project, or with --user under your home):
  claude  .claude/skills/massgen      codex  .agents/skills/massgen      gemini  .gemini/skills/massgen`,
    )
    .action((value: string) => {
      if (value !== 'install' && value !== 'path')
        throw new ConfigError(`unknown action "${value}": use massgen skill install, or massgen skill path`);
      action = value;
    })
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const opts = program.opts<{ target: SkillTarget; user: boolean; dir?: string }>();
  return { action, target: opts.target, user: opts.user, ...(opts.dir ? { dir: opts.dir } : {}) };
}

/** The skill bundled with the package (`skills/massgen`). */
export function bundledSkillDir(): string {
  const dir = packagePath('skills', 'massgen');
  if (!existsSync(path.join(dir, 'SKILL.md')))
    throw new ConfigError('the massgen skill is missing from this installation (skills/massgen/SKILL.md)', {
      hint: 'reinstall massgen',
    });
  return dir;
}

/** Where `install` puts the skill for these options. */
export function skillDestination(options: SkillOptions, where: { cwd: string; home: string }): string {
  if (options.dir) return path.resolve(where.cwd, options.dir, 'massgen');
  const folders = SKILL_FOLDERS[options.target];
  return options.user
    ? path.join(where.home, folders.user, 'massgen')
    : path.join(where.cwd, folders.project, 'massgen');
}

/** Runs `massgen skill install|path`. Returns the exit code. */
export function runSkillCommand(
  options: SkillOptions,
  io: { cwd: string; home: string; stdout: Write; stderr: Write },
): number {
  const source = bundledSkillDir();
  if (options.action === 'path') {
    io.stdout(`${source}\n`);
    return ExitCode.success;
  }
  const destination = skillDestination(options, io);
  const existed = existsSync(destination);
  cpSync(source, destination, { recursive: true, force: true });
  const scripts = path.join(destination, 'scripts');
  if (existsSync(scripts))
    for (const name of readdirSync(scripts)) chmodSync(path.join(scripts, name), 0o755);
  io.stdout(`${existed ? 'Updated' : 'Installed'} the massgen skill in ${destination}\n`);
  io.stdout(
    `The agent reads it when a task matches its description; ask e.g. "use the massgen skill to …". It works best with the MCP server registered: see massgen mcp --help.\n`,
  );
  return ExitCode.success;
}
