import path from 'node:path';
import {
  prepareRun,
  type DiscoveredConfig,
  type Env,
  type PreparedRun,
  type ReviewMode,
} from '../app/essentials.js';
import { ExitCode, exitCodeForError } from '../types/errors.js';
import type { RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { inertText } from '../util/terminal-text.js';
import { printAutomationFooter } from './automation-display.js';
import { UsageError, printError, type CliIo } from './cli-io.js';
import { cliState } from './cli-state.js';
import { configFrom, firstRun } from './config-from.js';
import { incompleteLogsWarning } from './incomplete-logs.js';
import { createProgressBar } from './progress-bar.js';
import type { CliOptions } from './program.js';
import type { TrustOutcome } from './project-trust-gate.js';
import { createRunView } from './run-view.js';
import { resultOfFailedStream, showRun } from './show-run.js';

/** What `runCli` has settled before a one-question run: the folder's trust and the environment. */
export interface OneQuestionSetup {
  home: string;
  /** The project or user config found when no flag names one. */
  discovered: DiscoveredConfig | null;
  /** Asks (or refuses) about the working folder's own files before a run uses any of them. */
  gate: () => Promise<TrustOutcome>;
  /** The environment with the user's `.env` files, as a run sees it. */
  userEnv: () => Env;
}

/**
 * `massgen "question"`: prepares the run (a progress bar for downloads), shows it in the chosen view,
 * then says where its logs and changes are. Returns the exit code; never throws.
 */
export async function runOneQuestion(
  options: CliOptions,
  io: CliIo,
  { home, discovered, gate, userEnv }: OneQuestionSetup,
): Promise<number> {
  let prepared: PreparedRun;
  const progressBar = createProgressBar(io.stderr, {
    isTTY: io.stderrIsTTY ?? false,
    ...(io.columns ? { width: io.columns } : {}),
  });
  try {
    if (!options.question?.trim())
      throw new UsageError('no question given', 'usage: massgen --config FILE "your question"');
    const trust = await gate();
    if (trust === 'refused') {
      progressBar.abandon();
      return ExitCode.config;
    }
    let env = userEnv();
    const wizardConfig = await firstRun(options, io, env, home);
    if (wizardConfig) env = userEnv(); // with the keys the wizard just saved
    prepared = await prepareRun({
      question: options.question,
      config: wizardConfig ?? configFrom(options, io, env, discovered),
      cwd: io.cwd,
      env,
      projectTrusted: trust === 'trusted',
      atPaths: true,
      onDownloadProgress: progressBar,
      ...(options.attach ? { attachments: options.attach } : {}),
      ...(options.logs ? {} : { logging: false }),
      ...(options.orchestratorTimeout === undefined
        ? {}
        : { orchestratorTimeoutSeconds: options.orchestratorTimeout }),
      ...(options.evalCriteria === undefined ? {} : { evalCriteria: options.evalCriteria }),
      review: reviewMode(options, io),
      interactive: canAskOnTerminal(options, io),
      ...(options.keepWorktrees ? { keepWorktrees: true } : {}),
      ...(options.allowPrivateUrls ? { allowPrivateUrls: true } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
  } catch (error) {
    progressBar.abandon();
    printError(io, error, options.debug);
    return exitCodeForError(error);
  }
  cliState.run = prepared;

  const view = createRunView(io, { ...options, review: reviewMode(options, io) === 'ask' }, prepared);
  cliState.view = view;
  // The live view shows no lines of its own about the winner's changes: they are recapped after it.
  const recapChanges = view.live;
  // Files dropped in --inbox-dir become messages; refusals are said after the live view closes.
  const refused: string[] = [];
  const inbox =
    options.inboxDir === undefined
      ? null
      : await startInbox(path.resolve(io.cwd, options.inboxDir), prepared, (file, reason) => {
          const text = `massgen: warning: --inbox-dir: ${file} was not sent: ${reason}\n`;
          if (view.live) refused.push(text);
          else io.stderr(inertText(text));
        }).catch((error: unknown) => {
          printError(io, error, options.debug);
          return null;
        });
  const streamFailure = await showRun(prepared.stream(), view, {
    ...(inbox ? { beforeView: (event: RunEvent) => inbox.handle(event) } : {}),
    afterView: async () => {
      await inbox?.stop();
      cliState.view = null;
      for (const text of refused) io.stderr(inertText(text));
    },
    sayError: (error) => printError(io, error, options.debug),
  });
  const ran = await prepared.result;
  const result = streamFailure ? resultOfFailedStream(ran, streamFailure.error) : ran;
  cliState.run = null;
  if (options.automation) printAutomationFooter(io.stdout, result, prepared.config.agents.length);
  else if (result.logDir && prepared.config.ui.display_type !== 'silent')
    io.stdout(`Logs: ${result.logDir}\n`);
  const incomplete = incompleteLogsWarning(result);
  if (incomplete) io.stderr(inertText(incomplete));
  for (const line of result.hookWarnings ?? []) io.stderr(inertText(`massgen: warning: ${line}\n`));
  printChanges(io, result, options.automation, recapChanges);
  for (const name of result.proposedSkills ?? [])
    io.stderr(
      inertText(
        `Proposed skill "${name}" in .massgen/proposed-skills/${name}: keep it with: massgen skills accept ${name}\n`,
      ),
    );
  // An error that ended the stream was said already, as it happened.
  if (result.status !== 'completed' && result.error && !options.automation && !streamFailure) {
    const prefix =
      result.status === 'cancelled'
        ? 'cancelled'
        : result.status === 'timeout'
          ? 'timed out'
          : result.error.code === 'provider_unreachable'
            ? 'error' // the run never started (exit 1)
            : 'run failed';
    io.stderr(`massgen: ${prefix}: ${inertText(result.error.message)}\n`);
  }
  return result.exitCode;
}

/**
 * Whether a person at a terminal can answer questions during the run (the views ask there). Without,
 * questions go to the file handshake or are denied, and `memory.save: ask` refuses agents' saves.
 */
export function canAskOnTerminal(options: CliOptions, io: CliIo): boolean {
  return !options.automation && io.terminal?.stdin.isTTY === true;
}

/**
 * `--review` (a person chooses: on the terminal, else through the file handshake in the log folder),
 * `--review=all|none`, or neither: the winner's changes are applied as the presenter's writes would be.
 * @throws a usage error for `--review` with nobody to ask: no terminal and no log folder.
 */
export function reviewMode(options: CliOptions, io: CliIo): ReviewMode {
  if (options.reviewMode) return options.reviewMode;
  if (!options.review) return 'apply';
  if (!canAskOnTerminal(options, io) && !options.logs) {
    throw new UsageError(
      '--review needs a terminal to ask on, or the log folder for the file handshake (drop --no-logs)',
      'or decide in advance with --review=all or --review=none',
    );
  }
  return 'ask';
}

/** What became of the winner's changes to isolated context paths, and the checkouts kept. */
function printChanges(io: CliIo, result: RunResult, automation: boolean, recap: boolean): void {
  for (const change of result.changes ?? []) {
    if (recap && !automation) {
      const applied = change.applied.length > 0 ? change.applied.join(', ') : 'nothing';
      const left = change.skipped.length > 0 ? `; left out ${change.skipped.join(', ')}` : '';
      io.stdout(
        inertText(
          `Changes to ${change.contextPath}: applied ${applied}${left}${change.diffFile ? ` (diff: ${change.diffFile})` : ''}\n`,
        ),
      );
    }
    if (automation) {
      io.stdout(
        inertText(
          `CHANGES: ${change.contextPath}: applied=${change.applied.length} conflicts=${change.conflicts.length} failed=${change.failed.length} skipped=${change.skipped.length} diff=${change.diffFile ?? '-'}\n`,
        ),
      );
    } else if (change.conflicts.length > 0) {
      io.stderr(
        inertText(
          `massgen: ${change.contextPath}: conflicts in ${change.conflicts.join(', ')}: resolve the <<<<<<< markers\n`,
        ),
      );
    }
    // Refusals and a kept checkout matter in every mode: the work is not where the user expects it.
    for (const failed of change.failed)
      io.stderr(inertText(`massgen: ${change.contextPath}: ${failed.path} not applied: ${failed.message}\n`));
    if (change.kept)
      io.stderr(
        inertText(
          `massgen: ${change.contextPath}: the winner's changes are kept in ${change.kept.path} (branch ${change.kept.branch}); by hand:\n${change.kept.commands.map((c) => `  ${c}\n`).join('')}`,
        ),
      );
  }
  for (const kept of result.keptWorktrees ?? [])
    io.stderr(
      inertText(
        `massgen: kept ${kept.agentId}'s checkout of ${kept.contextPath}: ${kept.path} (${kept.branch})\n`,
      ),
    );
}

/** Watches `--inbox-dir` for the run (loaded only with the flag). */
async function startInbox(
  dir: string,
  prepared: PreparedRun,
  onRejected: (file: string, reason: string) => void,
) {
  const { watchInbox } = await import('./inbox-dir.js');
  return watchInbox(dir, { steer: (message) => prepared.steer(message), onRejected });
}
