import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  latestSession,
  listSessions,
  loadSession,
  sessionsRoot as defaultSessionsRoot,
  stillRunningProcess,
  type Session,
} from '../../app/sessions.js';
import { MassGenError } from '../../types/errors.js';
import type { Write } from '../../app/plain-display.js';
import { inertText } from '../../util/terminal-text.js';
import { displayPath, formatHistory, formatSessionTable } from './format.js';
import { printError } from './print-error.js';
import { openRunner, runInteractive, type InteractiveOptions } from './run-interactive.js';
import { reportTurn, reportTurnAutomation, runViewedTurn, TurnGuard } from './turn.js';

/** `--list-sessions [--json]`: the sessions of `<cwd>/.massgen/sessions`, newest first. Exit code 0. */
export async function listSessionsCommand(
  io: { stdout: Write; cwd: string },
  options: { json?: boolean; sessionsRoot?: string } = {},
): Promise<number> {
  const root = path.resolve(io.cwd, options.sessionsRoot ?? defaultSessionsRoot(io.cwd));
  const { sessions, problems } = await listSessions(root);
  if (options.json) {
    io.stdout(`${JSON.stringify({ root, sessions, problems }, null, 2)}\n`);
  } else {
    io.stdout(formatSessionTable(sessions, problems, displayPath(root, io.cwd)));
  }
  return 0;
}

/** Options of {@link runSessionCommand}. */
export interface SessionCommandOptions extends Omit<InteractiveOptions, 'session' | 'config'> {
  /** The config; when resuming without one, the session's own config file is used if it still exists. */
  config?: InteractiveOptions['config'];
  /** Run this one question as the next turn and exit (no prompt). */
  question?: string;
  /** `--session-id ID`: continue this session. */
  sessionId?: string;
  /** `--continue`: continue the most recently updated session. */
  continueLatest?: boolean;
}

class UsageError extends MassGenError {
  constructor(message: string, hint?: string) {
    super('usage_error', message, hint ? { hint } : {});
  }
}

async function findSession(options: SessionCommandOptions, root: string): Promise<Session | null> {
  if (options.sessionId !== undefined && options.continueLatest) {
    throw new UsageError('use either --session-id or --continue, not both');
  }
  if (options.sessionId !== undefined) return loadSession(root, options.sessionId);
  if (!options.continueLatest) return null;
  const latest = await latestSession(root);
  if (latest === null) {
    throw new UsageError(
      `no session to continue in ${root}`,
      'start one with massgen --config FILE (no question), then --continue resumes it',
    );
  }
  return latest;
}

const isFile = (file: string): boolean => {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** Whether `file` is the working folder or inside it (real paths: a link out is outside, a link in inside). */
function insideFolder(file: string, folder: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const relative = path.relative(real(folder), real(file));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function configFor(options: SessionCommandOptions, session: Session | null): InteractiveOptions['config'] {
  if (options.config !== undefined) return options.config;
  if (session && path.isAbsolute(session.configSource) && isFile(session.configSource)) {
    // A session folder can come with a cloned repository: its recorded config, when it lies in the
    // working folder, is the folder's own config and needs the folder's trust like a discovered one.
    if (options.projectTrusted === false && insideFolder(session.configSource, options.io.cwd)) {
      throw new UsageError(
        `the session's config ${session.configSource} is in this folder, which is not trusted`,
        'review it with `massgen trust`, pass --trust-project for this run, or name a config with --config',
      );
    }
    return session.configSource;
  }
  throw new UsageError(
    session
      ? `no config given, and the session's config (${session.configSource}) is not a file that exists`
      : 'no config given',
    'pass --config FILE',
  );
}

/**
 * `--session-id ID`, `--continue` and interactive mode in one entry point: loads the session to
 * continue (if any), then either runs `question` as its next turn and exits with that turn's exit
 * code, or starts the interactive prompt (which prints the earlier turns).
 * An unknown session id, or nothing to continue, is a usage error (exit code 1).
 */
export async function runSessionCommand(options: SessionCommandOptions): Promise<number> {
  const { io } = options;
  const root = path.resolve(io.cwd, options.sessionsRoot ?? defaultSessionsRoot(io.cwd));
  let session: Session | null;
  let config: InteractiveOptions['config'];
  try {
    session = await findSession(options, root);
    config = configFor(options, session);
  } catch (error) {
    printError(io.stderr, error, options.debug);
    return 1;
  }
  const last = session?.turns.at(-1);
  if (session && last?.unfinished) {
    // Said once, plainly: the previous turn was cut off, and this one picks up what it logged — or it
    // is still running in another terminal, which keeps its subagents.
    const running = stillRunningProcess(last);
    const line = inertText(
      running !== null
        ? `Turn ${last.index} of session ${session.id} is still running in process ${running}; its subagents are left to it\n`
        : `Turn ${last.index} of session ${session.id} did not finish (its process ended while it ran)` +
            (last.logDir ? `: continuing from its log folder ${last.logDir}\n` : '\n'),
    );
    (options.automation ? io.stderr : io.stdout)(line);
  }
  const { question, sessionId: _id, continueLatest: _continue, ...rest } = options;
  if (question === undefined || question.trim() === '') {
    return runInteractive({ ...rest, config, session, sessionsRoot: root });
  }

  const runner = openRunner({ ...rest, config, session, sessionsRoot: root });
  if (typeof runner === 'number') return runner;
  if (session && !options.automation) {
    io.stdout(inertText(`Continuing session ${session.id} (${session.turns.length} earlier turn(s)):\n`));
    io.stdout(`${formatHistory(runner.turns)}\n`);
  }
  let quitWith: ((code: number) => void) | null = null;
  const quitRequested = new Promise<number>((resolve) => (quitWith = resolve));
  const guard = new TurnGuard(io, (code) => quitWith?.(code));
  const unsubscribe = io.onInterrupt?.(guard.interrupt);
  try {
    const turn = guard.begin();
    const running = runViewedTurn(
      runner,
      io,
      question,
      options.createView,
      turn,
      guard.interrupt,
      options.onActiveRun,
    );
    const finished = await Promise.race([running, quitRequested.then((code) => ({ code }))]);
    guard.end();
    if ('code' in finished) return finished.code;
    if (options.automation) reportTurnAutomation(io, finished, options.debug);
    else reportTurn(io, finished, options.debug);
    return finished.result.exitCode;
  } finally {
    unsubscribe?.();
  }
}
