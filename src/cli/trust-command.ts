import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import {
  formatProjectSummary,
  inspectProject,
  isProjectTrusted,
  readTrustStore,
  revokeTrust,
  trustProject,
  trustStoreFile,
} from '../app/project-trust.js';
import { describeError, ExitCode } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';
import type { CliIo } from './cli-io.js';
import { commanderExit } from './subcommand-setup.js';

interface TrustArgs {
  dir?: string;
  list: boolean;
  revoke: boolean;
}

const trustHelp = `
A folder's .massgen/config.yaml (used by massgen without --config), its other configs (offered by
massgen --web and massgen serve), its .env and its .massgen/hooks are used only once you trust the
folder. massgen remembers the files' sha256 in ~/.config/massgen/trusted.json: a changed file asks again.

Examples:
  $ massgen trust                 # trust the working folder, after showing what it would run
  $ massgen trust ~/src/project   # another folder
  $ massgen trust --list
  $ massgen trust --revoke        # forget the working folder`;

/** Parses `massgen trust …`. Errors are commander's. */
export function parseTrustArgs(argv: readonly string[]): TrustArgs {
  const program = new Command('massgen trust')
    .description('Trust a project folder: massgen then uses its config, .env and hooks without asking.')
    .argument('[dir]', 'the folder (default: the working folder)')
    .option('--list', 'list the trusted folders', false)
    .option('--revoke', 'forget the folder: its files are not used until you trust it again', false)
    .addHelpText('after', trustHelp)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const dir = program.args[0];
  return { ...program.opts<Omit<TrustArgs, 'dir'>>(), ...(dir === undefined ? {} : { dir }) };
}

/** `massgen trust [DIR]`, `--list`, `--revoke [DIR]`. Never throws. */
export function runTrustCli(argv: readonly string[], io: CliIo): number {
  const store = { env: io.env, home: io.home ?? os.homedir() };
  try {
    const args = parseTrustArgs(argv);
    if (args.list) {
      const records = readTrustStore(store);
      if (records.length === 0) io.stdout(`No trusted folders (${trustStoreFile(store)}).\n`);
      for (const record of records) {
        let state: string;
        try {
          state = isProjectTrusted(inspectProject(record.dir, { ...store, runOnly: true }))
            ? 'trusted'
            : 'changed since trusted: will ask again';
        } catch {
          state = 'cannot be read';
        }
        io.stdout(
          inertText(`${record.dir}  ${record.trusted_at.slice(0, 19).replace('T', ' ')}  ${state}\n`),
        );
      }
      return ExitCode.success;
    }
    const dir = path.resolve(io.cwd, args.dir ?? '.');
    if (args.revoke) {
      io.stdout(
        inertText(
          revokeTrust(dir, store) ? `Revoked: ${dir} is no longer trusted.\n` : `${dir} was not trusted.\n`,
        ),
      );
      return ExitCode.success;
    }
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      io.stderr(inertText(`massgen trust: error: ${dir} is not a folder\n`));
      return ExitCode.config;
    }
    const project = inspectProject(dir, store);
    io.stdout(formatProjectSummary(project));
    trustProject(project, store);
    io.stdout(
      inertText(
        `Trusted ${project.dir}: massgen uses these files until they change (undo: massgen trust --revoke).\n`,
      ),
    );
    return ExitCode.success;
  } catch (error) {
    const parseExit = commanderExit('trust', error, io);
    if (parseExit !== undefined) return parseExit;
    io.stderr(inertText(`massgen trust: error: ${describeError(error)}\n`));
    return ExitCode.config;
  }
}
