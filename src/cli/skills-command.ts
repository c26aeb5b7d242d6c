import { cpSync, existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import {
  acceptProposedSkill,
  discoverSkills,
  formatSkillProblem,
  listProposedSkills,
  readSkill,
  skillDirsIn,
  type SkillProblem,
} from '../skills/index.js';
import { configuredSkillsFolders } from '../skills/run-skills.js';
import { discoverConfig, isExampleRef, resolveExampleRef } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { ConfigError, describeError, ExitCode, MassGenError } from '../types/errors.js';
import { inertWriter } from '../util/terminal-text.js';

/**
 * `massgen skills …`: the Agent Skills massgen's own agents use (docs/skills.md) — not to be confused
 * with `massgen skill` (singular, skill-command.ts), which installs the skill that teaches a coding
 * agent to run massgen.
 */
export interface SkillsOptions {
  action: 'list' | 'add' | 'validate' | 'accept';
  /** add: the folder; accept: the name; validate: folders (none: the configured ones). */
  args: string[];
  config?: string;
  /** The skills folder to list, add to or accept into (instead of the config's first one). */
  dir?: string;
  force: boolean;
}

const HELP_AFTER = `
Skills are folders with a SKILL.md (YAML front matter with name: and description:, then
instructions) and any scripts it uses. Agents see each skill's name and description, and load the
rest with the load_skill tool. Configure the folders with skills: in the config (docs/skills.md).

Folders: --dir, else the skills: folders of --config (or of ./.massgen/config.yaml,
~/.config/massgen/config.yaml), else ./skills. add and accept use the first of them.

  $ massgen skills list --config team.yaml
  $ massgen skills validate ./skills
  $ massgen skills add ~/Downloads/pdf-tools --config team.yaml
  $ massgen skills accept csv-report        # a skill a winning answer proposed (skills.evolve)

Not the same as \`massgen skill install\` (singular), which gives a coding agent the massgen skill.`;

/** Parses `massgen skills list|add|validate|accept …`. */
export function parseSkillsArgs(argv: readonly string[]): SkillsOptions {
  let parsed: Pick<SkillsOptions, 'action' | 'args'> | undefined;
  const program = new Command('massgen skills')
    .description("Manage the Agent Skills massgen's agents use (SKILL.md folders, loaded with load_skill).")
    .argument('<action>', 'list, add <folder>, validate [folder…] or accept <name>')
    .argument('[args...]')
    .option('--config <file>', 'the config whose skills: folders to use')
    .option('--dir <folder>', 'this skills folder instead of the configured ones')
    .option('--force', 'add: replace a skill of the same name', false)
    .addHelpText('after', HELP_AFTER)
    .action((action: string, args: string[]) => {
      if (action !== 'list' && action !== 'add' && action !== 'validate' && action !== 'accept')
        throw new ConfigError(
          `unknown action "${action}": use list, add <folder>, validate or accept <name>`,
        );
      if ((action === 'add' || action === 'accept') && args.length !== 1)
        throw new ConfigError(`massgen skills ${action} takes one ${action === 'add' ? 'folder' : 'name'}`);
      parsed = { action, args };
    })
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const opts = program.opts<{ config?: string; dir?: string; force: boolean }>();
  return {
    ...parsed!,
    force: opts.force,
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.dir ? { dir: opts.dir } : {}),
  };
}

interface SkillsIo {
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  stdout: Write;
  stderr: Write;
}

/** The skills folders in use (absolute), and where they came from. */
function skillsFolders(options: SkillsOptions, io: SkillsIo): { folders: string[]; from: string } {
  if (options.dir) return { folders: [path.resolve(io.cwd, options.dir)], from: '--dir' };
  const file = options.config
    ? isExampleRef(options.config)
      ? resolveExampleRef(options.config)
      : path.resolve(io.cwd, options.config)
    : discoverConfig({ cwd: io.cwd, env: io.env, home: io.home })?.path;
  if (file) {
    const folders = configuredSkillsFolders(file, io);
    if (folders.length > 0) return { folders, from: file };
    if (options.config)
      throw new ConfigError(`${file} names no skills folders`, {
        hint: 'add e.g. skills: [./skills] to it, or pass --dir FOLDER',
      });
  }
  return { folders: [path.join(io.cwd, 'skills')], from: 'the default ./skills' };
}

const problemLines = (problems: readonly SkillProblem[]) =>
  problems.map((p) => `${formatSkillProblem(p)}\n`).join('');

function list(options: SkillsOptions, io: SkillsIo): number {
  const { folders, from } = skillsFolders(options, io);
  const found = discoverSkills(folders);
  io.stdout(`Skills folders (${from}): ${folders.join(', ')}\n`);
  for (const missing of found.missing) io.stdout(`  (${missing} does not exist)\n`);
  if (found.skills.length === 0) io.stdout('No skills.\n');
  const width = Math.max(4, ...found.skills.map((s) => s.name.length));
  for (const skill of found.skills) {
    const description = skill.description.replace(/\s+/g, ' ');
    io.stdout(
      `${skill.name.padEnd(width)}  ${description.length > 100 ? `${description.slice(0, 99)}…` : description}  (${skill.source})\n`,
    );
  }
  if (found.problems.length > 0)
    io.stderr(`Skipped (fix with massgen skills validate):\n${problemLines(found.problems)}`);
  const proposed = listProposedSkills(io.cwd);
  if (proposed.length > 0)
    io.stdout(`Proposed by a run (massgen skills accept NAME): ${proposed.join(', ')}\n`);
  return ExitCode.success;
}

function validate(options: SkillsOptions, io: SkillsIo): number {
  const explicit = options.args.length > 0;
  const targets = explicit
    ? options.args.map((a) => path.resolve(io.cwd, a))
    : skillsFolders(options, io).folders;
  const problems: SkillProblem[] = [];
  let checked = 0;
  for (const target of targets) {
    const folder = path.basename(target) === 'SKILL.md' ? path.dirname(target) : target;
    if (!existsSync(folder)) {
      // A configured folder may be absent (e.g. ~/.config/massgen/skills); one named here must exist.
      if (explicit) problems.push({ file: folder, line: 1, message: 'does not exist' });
      else io.stdout(`(${folder} does not exist)\n`);
      continue;
    }
    const dirs = skillDirsIn(folder);
    if (dirs.length === 0)
      problems.push({ file: folder, line: 1, message: 'holds no SKILL.md (nor do its subfolders)' });
    for (const dir of dirs) {
      checked += 1;
      problems.push(...readSkill(dir).problems);
    }
  }
  if (problems.length > 0) {
    io.stderr(problemLines(problems));
    io.stderr(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${checked} skill${checked === 1 ? '' : 's'}\n`,
    );
    return ExitCode.config;
  }
  io.stdout(`${checked} skill${checked === 1 ? '' : 's'} valid\n`);
  return ExitCode.success;
}

function add(options: SkillsOptions, io: SkillsIo): number {
  const source = path.resolve(io.cwd, options.args[0]!);
  if (!existsSync(source) || !statSync(source).isDirectory())
    throw new ConfigError(`${source} is not a folder`, {
      hint: 'give the skill folder (the one holding SKILL.md)',
    });
  const read = readSkill(source);
  if (!read.skill) {
    io.stderr(problemLines(read.problems));
    io.stderr('not added: fix the problems above first\n');
    return ExitCode.config;
  }
  const target = skillsFolders(options, io).folders[0]!;
  const destination = path.join(target, read.skill.name);
  if (existsSync(destination) && !options.force)
    throw new ConfigError(`${destination} exists already`, { hint: 'pass --force to replace it' });
  cpSync(source, destination, { recursive: true, force: true });
  io.stdout(`Added the skill "${read.skill.name}" to ${destination}\n`);
  return ExitCode.success;
}

function accept(options: SkillsOptions, io: SkillsIo): number {
  const target = skillsFolders(options, io).folders[0]!;
  const destination = acceptProposedSkill(io.cwd, options.args[0]!, target);
  io.stdout(`Accepted the skill "${options.args[0]}" into ${destination}\n`);
  return ExitCode.success;
}

/** Runs `massgen skills …` (argv after `skills`). Never throws; returns the exit code. */
export function runSkillsCli(
  argv: readonly string[],
  io: Omit<SkillsIo, 'home'> & { home?: string },
): number {
  // Skills are other people's files: their names, descriptions, paths and problems are shown inert.
  const full: SkillsIo = {
    ...io,
    stdout: inertWriter(io.stdout),
    stderr: inertWriter(io.stderr),
    home: io.home ?? os.homedir(),
  };
  try {
    const options = parseSkillsArgs(argv);
    if (options.action === 'list') return list(options, full);
    if (options.action === 'validate') return validate(options, full);
    if (options.action === 'add') return add(options, full);
    return accept(options, full);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return ExitCode.success; // --help
      full.stderr(
        `massgen skills: error: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`,
      );
      return ExitCode.config;
    }
    full.stderr(`massgen skills: error: ${describeError(error)}\n`);
    if (error instanceof MassGenError && error.hint) full.stderr(`hint: ${error.hint}\n`);
    return ExitCode.config;
  }
}
