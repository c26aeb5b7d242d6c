import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import {
  formatProjectSummary,
  inspectProject,
  isProjectTrusted,
  trustedConfigFilter,
  trustProject,
  type ProjectInspection,
} from '../app/project-trust.js';
import type { DiscoveredConfig } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { describeError } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';

/** What deciding about a project folder needs from the process. */
export interface TrustGateIo {
  cwd: string;
  /** The real environment (before any `.env`): it says where the user's trust list is. */
  env: Readonly<Record<string, string | undefined>>;
  /** Defaults to `os.homedir()`. */
  home?: string;
  stderr: Write;
  stdin?: NodeJS.ReadableStream;
  stdinIsTTY?: boolean;
  stderrIsTTY?: boolean;
}

export interface TrustGateOptions {
  /** The config the run would use because it was found (not named with --config), if any. */
  discovered: DiscoveredConfig | null;
  /** `--automation`: nobody is there to ask. */
  automation: boolean;
  /** `--trust-project`: trusted for this run (nothing is remembered). */
  trustFlag: boolean;
}

/** `trusted`: the folder's files may be used; `refused`: the run must not start (exit 1, said). */
export type TrustOutcome = 'trusted' | 'untrusted' | 'refused';

const TRUST_HINT = 'review it with `massgen trust`, or pass --trust-project for this run';
const ENV_FILE = `.${path.sep}.env`;

const storeOf = (io: Pick<TrustGateIo, 'env' | 'home'>) => ({ env: io.env, home: io.home ?? os.homedir() });

const why = (project: ProjectInspection) =>
  project.record ? 'it changed since you trusted this folder' : 'this folder is not trusted';

/** Asks one yes/no question on the terminal; anything but y/yes (and Ctrl-C, Ctrl-D) is no. */
function askYesNo(io: TrustGateIo, question: string): Promise<boolean> {
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      io.stderr(chunk.toString());
      callback();
    },
  });
  const rl = createInterface({ input: io.stdin!, output, terminal: true, historySize: 0 });
  return new Promise((resolve) => {
    let answered = false;
    const finish = (yes: boolean) => {
      if (answered) return;
      answered = true;
      rl.close();
      resolve(yes);
    };
    rl.on('SIGINT', () => {
      io.stderr('\n');
      finish(false);
    });
    rl.on('close', () => finish(false));
    rl.question(question, (answer) => finish(/^\s*y(es)?\s*$/i.test(answer)));
  });
}

/**
 * Decides whether this run may use the working folder's own files: `.massgen/config.yaml` when the
 * run would use it, `.env`, and (for skills and modules found through the folder) the folder itself.
 * A folder the user trusted, unchanged since, is used. Otherwise, on a terminal (stdin and stderr),
 * the user sees what the files would start and where keys would go, and is asked once; a yes is
 * remembered. Without a terminal (or with `--automation`) nobody is asked: a project config is refused
 * in one line (`refused`: exit 1 before anything starts), a `.env` is left out in one line.
 * Says which discovered config the run uses.
 */
export async function gateProject(io: TrustGateIo, options: TrustGateOptions): Promise<TrustOutcome> {
  if (options.discovered?.scope === 'user')
    io.stderr(inertText(`massgen: using user config ${options.discovered.path}\n`));
  const projectConfig = options.discovered?.scope === 'project';
  let project: ProjectInspection;
  try {
    project = inspectProject(io.cwd, { ...storeOf(io), runOnly: true });
  } catch (error) {
    // A damaged trust list trusts nothing: what needs trust is refused, the rest goes on.
    const needsTrust = projectConfig || existsSync(path.join(io.cwd, '.env'));
    io.stderr(`massgen: ${projectConfig ? 'error' : 'warning'}: ${inertText(describeError(error))}\n`);
    if (needsTrust && !projectConfig) io.stderr(`massgen: not loading ${ENV_FILE}\n`);
    return projectConfig ? 'refused' : 'untrusted';
  }
  const configLabel = `.${path.sep}${project.config?.rel ?? ''}`;
  const using = (how: string) => {
    if (projectConfig) io.stderr(`massgen: using project config ${configLabel} (${how})\n`);
  };
  if (isProjectTrusted(project)) {
    using('trusted');
    return 'trusted';
  }
  // Hooks in `.massgen/hooks/` run commands: they need trust as much as a config does (docs/hooks.md).
  const needed = projectConfig || project.envNames !== null || (project.hooks?.length ?? 0) > 0;
  if (!needed) return 'untrusted';
  if (options.trustFlag) {
    using('trusted for this run: --trust-project');
    return 'trusted';
  }
  const canAsk =
    !options.automation && io.stdin !== undefined && io.stdinIsTTY === true && io.stderrIsTTY === true;
  if (canAsk) {
    // What the user trusts is the whole folder: every config in it, as `massgen trust` shows it.
    project = inspectProject(io.cwd, storeOf(io));
    io.stderr(
      `massgen: this folder's own files would be used, and ${why(project)}. They can start programs and send your API keys:\n${formatProjectSummary(project)}`,
    );
    if (await askYesNo(io, 'Trust this folder (massgen remembers it until the files change)? [y/N] ')) {
      try {
        trustProject(project, storeOf(io));
      } catch (error) {
        io.stderr(`massgen: error: ${inertText(describeError(error))}\n`);
        return 'refused';
      }
      io.stderr(`massgen: trusted ${inertText(project.dir)} (undo with: massgen trust --revoke)\n`);
      using('trusted');
      return 'trusted';
    }
  }
  if (projectConfig) {
    io.stderr(
      `massgen: error: not using the project config ${configLabel}: ${why(project)} and it can start programs and send your API keys — ${TRUST_HINT}\n`,
    );
    return 'refused';
  }
  if (project.envNames !== null)
    io.stderr(`massgen: not loading ${ENV_FILE}: ${why(project)} — ${TRUST_HINT}\n`);
  return 'untrusted';
}

/**
 * For commands that never ask (subcommands, servers, listings): whether the working folder's `.env`
 * may be loaded. When there is one and the folder is not trusted, one line says it is left out.
 */
export function projectEnvAllowed(io: Omit<TrustGateIo, 'stdin'>): boolean {
  if (!existsSync(path.join(io.cwd, '.env'))) return false;
  try {
    const project = inspectProject(io.cwd, { ...storeOf(io), runOnly: true });
    if (isProjectTrusted(project)) return true;
    io.stderr(`massgen: not loading ${ENV_FILE}: ${why(project)} — review it with \`massgen trust\`\n`);
  } catch (error) {
    io.stderr(`massgen: not loading ${ENV_FILE}: ${inertText(describeError(error))}\n`);
  }
  return false;
}

/**
 * For `massgen --web` and `massgen serve`, which offer the working folder's configs: which of them may
 * be offered (those of a trusted folder, unchanged since). One line names those left out.
 */
export function projectConfigFilter(io: Omit<TrustGateIo, 'stdin'>): (file: string) => boolean {
  try {
    const project = inspectProject(io.cwd, storeOf(io));
    const allowed = trustedConfigFilter(project);
    const left = project.configs.filter((c) => !allowed(path.join(project.dir, c.rel)));
    if (left.length > 0)
      io.stderr(
        inertText(
          `massgen: not offering ${left.map((c) => c.rel).join(', ')}: ${why(project)} — review with \`massgen trust\`\n`,
        ),
      );
    return allowed;
  } catch (error) {
    io.stderr(`massgen: not offering this folder's configs: ${inertText(describeError(error))}\n`);
    return () => false;
  }
}
