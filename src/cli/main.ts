import os from 'node:os';
import path from 'node:path';
import { CommanderError } from 'commander';
import {
  configJsonSchema,
  ConfigValidationError,
  DEFAULT_LOCAL_MODEL,
  anyApiKeySet,
  backendTypes,
  discoverConfig,
  isExampleRef,
  isLocalModelCached,
  loadUserEnv,
  resolveExampleRef,
  shouldRunWizard,
  formatDiagnostics,
  inferBackend,
  describeSandbox,
  listBackends,
  localDefaultConfig,
  prepareRun,
  runScrubber,
  singleAgentConfig,
  type DiscoveredConfig,
  type Env,
  type MassGenConfig,
  type PreparedRun,
  type ReviewMode,
} from '../app/essentials.js';
import { CancelledError, ExitCode, MassGenError, describeError, exitCodeForError } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';
import { printAutomationFooter } from './automation-display.js';
import { incompleteLogsWarning } from './incomplete-logs.js';
import type { Write } from '../app/plain-display.js';
import { parseCli, type CliOptions } from './program.js';
import { printValidationReport } from './validate-command.js';
import { printBackendList } from './list-backends-command.js';
import { printExample, printExampleList } from './examples-command.js';
import { createProgressBar } from './progress-bar.js';
import { gateProject, projectConfigFilter, projectEnvAllowed } from './project-trust-gate.js';
import { createRunView, type RunView, type RunViewIo } from './run-view.js';
import { urlPasswordScrubber, type SecretScrubber } from '../util/secret-scrubber.js';
import { inertText } from '../util/terminal-text.js';

export interface CliIo {
  stdout: Write;
  stderr: Write;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Ctrl-C and SIGTERM arrive here; the CLI cancels the run and still flushes its logs. */
  signal?: AbortSignal;
  /** Whether stderr is a terminal (progress bars redraw in place there). */
  stderrIsTTY?: boolean;
  /** Terminal width, for the progress bar. */
  columns?: number;
  /** Answers for `--setup` and the first-run questions; without it the CLI never prompts. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stdin is a terminal (typed API keys are then hidden). */
  stdinIsTTY?: boolean;
  /** Whether stdout is a terminal; first-run prompts need both. */
  stdoutIsTTY?: boolean;
  /** The home folder, for ~/.config/massgen; defaults to os.homedir(). */
  home?: string;
  /** The real terminal streams, for the live view. */
  terminal?: RunViewIo['terminal'];
  requestInterrupt?: () => void;
  /** While subscribed, every SIGINT/SIGTERM goes to the listener (interactive mode) instead of ending the run. */
  onInterrupt?: (listener: () => void) => () => void;
}

class UsageError extends MassGenError {
  constructor(message: string, hint?: string) {
    super('usage_error', message, hint ? { hint } : {});
  }
}

/** Every secret the environment holds, for messages printed before a run has its own scrubber. */
let envScrubber: SecretScrubber = urlPasswordScrubber;

function printError(io: CliIo, error: unknown, debug: boolean): void {
  // An error may quote a model, a tool or a server: shown inert, never run by the terminal.
  const say = (text: string) => io.stderr(inertText(envScrubber.text(text)));
  say(`massgen: error: ${describeError(error)}\n`);
  if (error instanceof ConfigValidationError && error.diagnostics.length > 1) {
    say(`${formatDiagnostics(error.diagnostics, error.source)}\n`);
  }
  if (error instanceof MassGenError && error.hint) say(`hint: ${error.hint}\n`);
  if (debug && error instanceof Error && error.stack) say(`${error.stack}\n`);
}

function configFrom(
  options: CliOptions,
  io: CliIo,
  env: Env,
  discovered: DiscoveredConfig | null,
): MassGenConfig | string {
  if (options.localModel) {
    if (options.config || options.backend || options.model) {
      throw new UsageError('use --local-model on its own, without --config, --backend or --model');
    }
    const model = options.localModel.startsWith('hf:')
      ? options.localModel
      : path.resolve(io.cwd, options.localModel);
    return localDefaultConfig(model);
  }
  if (options.config) {
    if (options.backend || options.model || options.provider) {
      throw new UsageError('use either --config or --backend/--model/--provider, not both');
    }
    return isExampleRef(options.config) ? resolveExampleRef(options.config) : options.config;
  }
  if (options.backend || options.model) {
    if (!options.model)
      throw new UsageError('--backend needs --model', `e.g. --backend ${options.backend} --model <name>`);
    // Quick mode: `--model NAME` alone picks the backend from the model name.
    const inferred = options.backend ? undefined : inferBackend(options.model);
    const backendType = options.backend ?? inferred?.type;
    if (!backendType) {
      throw new UsageError(
        `cannot tell which backend serves "${options.model}": add --backend TYPE`,
        `backend types: ${backendTypes().join(', ')} (massgen --list-backends shows them with their key variables)`,
      );
    }
    const provider = options.provider ?? inferred?.provider;
    return singleAgentConfig({
      backendType,
      model: options.model,
      ...(provider ? { provider } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.systemMessage ? { systemMessage: options.systemMessage } : {}),
    });
  }
  // No flags: a project config (the folder is trusted: see gateProject) or the user's, first found wins.
  if (discovered) return discovered.path;
  // Nothing configured and no key anywhere: the zero-key start, two agents on a local model.
  if (!anyApiKeySet(env)) return localDefaultConfig(DEFAULT_LOCAL_MODEL);
  throw new UsageError(
    'no agents configured: pass --config FILE, --model NAME or --local-model PATH',
    'run `massgen --setup` to choose providers and a team once, or `massgen --help` for examples',
  );
}

/**
 * First run with nothing configured, on a terminal: the setup wizard, or first the question whether
 * to download the local model (see shouldRunWizard). Returns the config the wizard wrote, or
 * undefined to go on as usual.
 */
async function firstRun(options: CliOptions, io: CliIo, env: Env, home: string): Promise<string | undefined> {
  if (!io.stdin) return undefined;
  const configFound =
    Boolean(options.config || options.model || options.backend || options.localModel) ||
    discoverConfig({ cwd: io.cwd, env: io.env, home }) !== null;
  const decision = shouldRunWizard({
    configFound,
    anyKeySet: anyApiKeySet(env),
    isTTY: io.stdinIsTTY === true && io.stdoutIsTTY === true,
    localModelCached: isLocalModelCached({ env, home }),
  });
  if (decision === 'none') return undefined;
  const wizardIo = { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, env, home, isTTY: true };
  const { askLocalModelDownload, runSetupWizard } = await import('../app/setup-wizard/wizard.js');
  if (decision === 'ask-local-model' && (await askLocalModelDownload(wizardIo))) return undefined;
  return (await runSetupWizard(wizardIo)).configPath;
}

/** A commander parse error as one line on stderr; --help and --version are not errors. */
function commanderExit(io: CliIo, error: CommanderError): number {
  if (error.exitCode === 0) return ExitCode.success;
  // One line: commander puts its "(Did you mean --model?)" suggestion on a line of its own.
  io.stderr(`massgen: error: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`);
  return ExitCode.config;
}

/** Resolves once the process is asked to stop (Ctrl-C, SIGTERM, SIGHUP). */
export function stoppedBy(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** `massgen serve …`: the OpenAI-compatible server. */
async function serveCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { parseServeArgs, runServeCommand } = await import('./serve-command.js');
  let options;
  try {
    options = parseServeArgs(argv);
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(io, error);
    printError(io, error, false);
    return ExitCode.config;
  }
  const home = io.home ?? os.homedir();
  const env = loadUserEnv({ cwd: io.cwd, env: io.env, home, projectEnv: projectEnvAllowed(io) });
  const scrubber = runScrubber(null, env);
  return runServeCommand(options, {
    cwd: io.cwd,
    env,
    projectConfigs: projectConfigFilter(io),
    stdout: io.stdout,
    stderr: io.stderr,
    // The first Ctrl-C/SIGTERM drains the server, the second quits at once: serve takes the signals.
    ...(io.onInterrupt ? { onInterrupt: io.onInterrupt } : {}),
    stopped: stoppedBy(io.signal),
    // Its lines quote what HTTP clients sent (the model name) and errors: inert as well as scrubbed.
    scrub: (text) => inertText(scrubber.text(text)),
  });
}

/** Runs the CLI and returns the process exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Bare `massgen` opens a session when a project or user config exists (e.g. after --setup).
  if (argv.length === 0 && !discoverConfig({ cwd: io.cwd, env: io.env, home: io.home ?? os.homedir() })) {
    io.stderr('massgen: error: no question and no agents given\n');
    io.stderr(
      'hint: massgen --config FILE "your question" — `massgen demo` tries a scripted team without a key, `massgen --help` shows every option and examples\n',
    );
    return ExitCode.config;
  }
  if (argv[0] === 'serve') return serveCli(argv.slice(1), io);
  if (argv[0] === 'demo') {
    // A scripted team in the terminal, the web UI or behind the API: no key (docs/demo.md).
    const { runDemoCli } = await import('./demo-command.js');
    return runDemoCli(argv.slice(1), io);
  }
  if (argv[0] === 'trust') {
    const { runTrustCli } = await import('./trust-command.js');
    return runTrustCli(argv.slice(1), io);
  }
  if (argv[0] === 'mcp' || argv[0] === 'skill' || argv[0] === 'step') {
    // For coding agents and outside loops; the MCP SDK loads only for `massgen mcp`.
    const { runCodingAgentCli } = await import('./coding-agent-cli.js');
    return runCodingAgentCli(argv[0], argv.slice(1), io);
  }
  if (argv[0] === 'skills') {
    // The Agent Skills massgen's agents use (`massgen skill`, singular, is the coding agents' skill).
    const { runSkillsCli } = await import('./skills-command.js');
    return runSkillsCli(argv.slice(1), io);
  }
  if (argv[0] === 'memory') {
    // What teams remember (docs/memory.md); LanceDB loads only for this command and memory runs.
    const { runMemoryCli } = await import('./memory-command.js');
    return runMemoryCli(argv.slice(1), io);
  }
  if (argv[0] === 'batch' || argv[0] === 'worker' || argv[0] === 'queue' || argv[0] === 'eval') {
    // Loaded only for these commands (and bullmq only with --queue).
    const { runScaleOutCli } = await import('./scale-out-cli.js');
    return runScaleOutCli(argv[0], argv.slice(1), io);
  }
  let options: CliOptions;
  try {
    options = parseCli(argv);
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(io, error);
    printError(io, error, false);
    return ExitCode.config;
  }
  // The AI SDK prints provider warnings to the console; only --debug wants them.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = options.debug;

  const home = io.home ?? os.homedir();
  // Whether ./.env may be loaded: decided by a run's trust question, else checked without asking.
  let projectEnv: boolean | undefined;
  // The environment, then ./.env (a trusted folder's), then ~/.config/massgen/.env (where --setup saves keys).
  const userEnv = () => {
    projectEnv ??= projectEnvAllowed(io);
    const env = loadUserEnv({ cwd: io.cwd, env: io.env, home, projectEnv });
    envScrubber = runScrubber(null, env);
    return env;
  };

  if (options.showSchema) {
    io.stdout(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    return ExitCode.success;
  }
  if (options.listExamples) {
    printExampleList(io.stdout);
    return ExitCode.success;
  }
  if (options.example) {
    try {
      printExample(io.stdout, options.example);
      return ExitCode.success;
    } catch (error) {
      printError(io, error, options.debug);
      return ExitCode.config;
    }
  }
  if (options.setup) {
    if (!io.stdin) {
      io.stderr('massgen: error: --setup needs a terminal or answers on stdin\n');
      return ExitCode.config;
    }
    try {
      const { stdin, stdout, stderr } = io;
      const { runSetupWizard } = await import('../app/setup-wizard/wizard.js');
      await runSetupWizard({ stdin, stdout, stderr, env: userEnv(), home, isTTY: io.stdinIsTTY === true });
      return ExitCode.success;
    } catch (error) {
      printError(io, error, options.debug);
      return exitCodeForError(error);
    }
  }

  if (options.listBackends) {
    printBackendList(io.stdout, listBackends(userEnv()), options.json, describeSandbox(userEnv()));
    return ExitCode.success;
  }

  if (options.validate) {
    try {
      // `.env` files fill in what the real environment leaves unset.
      // `--validate --config FILE` reads as the reader meant: check the file --config names.
      const named = options.validate === true ? options.config : options.validate;
      if (!named) throw new UsageError('--validate needs a config file: massgen --validate team.yaml');
      const file = isExampleRef(named) ? resolveExampleRef(named) : named;
      const { validateConfig } = await import('../app/validate.js');
      const report = validateConfig(file, { cwd: io.cwd, env: userEnv() });
      printValidationReport(io.stdout, report, options.json, { cwd: io.cwd });
      return report.valid ? ExitCode.success : ExitCode.config;
    } catch (error) {
      printError(io, error, options.debug);
      return ExitCode.config;
    }
  }

  if (options.listSessions) {
    const { listSessionsCommand } = await import('./interactive/index.js');
    return listSessionsCommand(io, { json: options.json });
  }

  if (options.web) {
    const { runWebCommand } = await import('./web-command.js');
    return runWebCommand({
      cwd: io.cwd,
      env: userEnv(),
      projectConfigs: projectConfigFilter(io),
      open: options.open,
      stdout: io.stdout,
      stderr: io.stderr,
      stopped: stoppedBy(io.signal),
      ...(options.config ? { config: options.config } : {}),
      ...(options.host ? { host: options.host } : {}),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
      ...(options.auth === false ? { auth: false } : {}),
      ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
    });
  }

  // Interactive mode: agents but no question (or a session to continue, with or without a question).
  const resuming = options.continue || options.sessionId !== undefined;
  const flagged = Boolean(options.config || options.model || options.backend || options.localModel);
  const discovered = flagged ? null : discoverConfig({ cwd: io.cwd, env: io.env, home });
  const noQuestion = !options.question?.trim();
  /** Asks (or refuses) about the working folder's own files before a run uses any of them. */
  const gate = async () => {
    const trust = await gateProject(io, {
      discovered,
      automation: options.automation,
      trustFlag: options.trustProject,
    });
    projectEnv = trust === 'trusted';
    return trust;
  };
  if (resuming || (noQuestion && !options.automation && io.stdin && (flagged || discovered))) {
    if (options.attach !== undefined) {
      printError(
        io,
        new UsageError(
          '--attach goes with one question: give a question (and no --continue or --session-id)',
          'usage: massgen --attach photo.png "What is in this picture?"',
        ),
        options.debug,
      );
      return ExitCode.config;
    }
    if (options.inboxDir !== undefined) {
      printError(
        io,
        new UsageError(
          '--inbox-dir steers one run: give a question',
          'usage: massgen --config FILE --inbox-dir DIR "your question"',
        ),
        options.debug,
      );
      return ExitCode.config;
    }
    if (!io.stdin) {
      io.stderr('massgen: error: interactive mode needs stdin\n');
      return ExitCode.config;
    }
    const trust = await gate();
    if (trust === 'refused') return ExitCode.config;
    const env = userEnv();
    let config: MassGenConfig | string | undefined;
    try {
      // Resuming with no config flags: the session's own config file (else a discovered one).
      config = flagged ? configFrom(options, io, env, null) : discovered?.path;
    } catch (error) {
      printError(io, error, options.debug);
      return exitCodeForError(error);
    }
    const { runSessionCommand } = await import('./interactive/index.js');
    return runSessionCommand({
      io: {
        stdout: io.stdout,
        stderr: io.stderr,
        stdin: io.stdin,
        cwd: io.cwd,
        env,
        isTTY: io.stdinIsTTY === true && io.stdoutIsTTY === true,
        ...(io.columns ? { columns: io.columns } : {}),
        ...(io.onInterrupt ? { onInterrupt: io.onInterrupt } : {}),
      },
      ...(config === undefined ? {} : { config }),
      ...(options.config
        ? {}
        : options.localModel
          ? { configSource: `--local-model ${options.localModel}` }
          : options.model
            ? { configSource: `--model ${options.model}` }
            : {}),
      ...(noQuestion ? {} : { question: options.question }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      continueLatest: options.continue,
      projectTrusted: trust === 'trusted',
      ...(options.allowPrivateUrls ? { allowPrivateUrls: true } : {}),
      interactive: canAskOnTerminal(options, io),
      // Each turn gets the same view as a one-question run; its q/Ctrl-C cancels just that turn.
      createView: (_turnIo, turn, run) =>
        createRunView({ ...io, env, requestInterrupt: turn.interrupt }, options, run),
      debug: options.debug,
      ...(options.automation ? { automation: true } : {}),
      onActiveRun: (run) => (activeRun = run),
      ...(options.logs ? {} : { logging: false }),
      ...(options.orchestratorTimeout === undefined
        ? {}
        : { orchestratorTimeoutSeconds: options.orchestratorTimeout }),
      ...(options.evalCriteria === undefined ? {} : { evalCriteria: options.evalCriteria }),
    });
  }

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
  activeRun = prepared;

  const view = createRunView(io, { ...options, review: reviewMode(options, io) === 'ask' }, prepared);
  liveView = view;
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
  try {
    for await (const event of prepared.stream()) {
      inbox?.handle(event);
      view.handle(event);
    }
  } catch (error) {
    printError(io, error, options.debug);
  } finally {
    await inbox?.stop();
    await view.finish();
    liveView = null;
    for (const text of refused) io.stderr(inertText(text));
  }
  const result = await prepared.result;
  activeRun = null;
  if (options.automation) printAutomationFooter(io.stdout, result, prepared.config.agents.length);
  else if (result.logDir && prepared.config.ui.display_type !== 'silent')
    io.stdout(`Logs: ${result.logDir}\n`);
  const incomplete = incompleteLogsWarning(result);
  if (incomplete) io.stderr(inertText(incomplete));
  printChanges(io, result, options.automation, recapChanges);
  for (const name of result.proposedSkills ?? [])
    io.stderr(
      inertText(
        `Proposed skill "${name}" in .massgen/proposed-skills/${name}: keep it with: massgen skills accept ${name}\n`,
      ),
    );
  if (result.status !== 'completed' && result.error && !options.automation) {
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
function canAskOnTerminal(options: CliOptions, io: CliIo): boolean {
  return !options.automation && io.terminal?.stdin.isTTY === true;
}

/**
 * `--review` (a person chooses: on the terminal, else through the file handshake in the log folder),
 * `--review=all|none`, or neither: the winner's changes are applied as the presenter's writes would be.
 * @throws a usage error for `--review` with nobody to ask: no terminal and no log folder.
 */
function reviewMode(options: CliOptions, io: CliIo): ReviewMode {
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

/** The run in progress, so process-level handlers can flush its logs synchronously. */
let activeRun: PreparedRun | null = null;
/** The current run's view: while the live view owns the screen, signal messages stay off it. */
let liveView: RunView | null = null;

/** Entry point of the `massgen` binary: wires the real process to {@link runCli}. */
export async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const interruptListeners = new Set<() => void>();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruptListeners.size > 0) {
      // Interactive mode: Ctrl-C cancels the turn in progress, or quits at the prompt.
      for (const listener of [...interruptListeners]) listener();
      return;
    }
    interrupts++;
    if (interrupts === 1) {
      if (!liveView?.live)
        process.stderr.write(
          `\nmassgen: ${signal} received — cancelling and writing logs (press Ctrl-C again to quit at once)\n`,
        );
      controller.abort(new CancelledError(`interrupted by ${signal}`));
    } else {
      // No more waiting: the logs still end in a terminal state (status.json, events.jsonl).
      activeRun?.terminateSync({
        status: 'cancelled',
        exitCode: ExitCode.interrupted,
        error: { code: 'cancelled', message: `interrupted again by ${signal} while cancelling` },
      });
      process.exit(ExitCode.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal (or ssh session) is a request to stop, like SIGTERM.
  process.on('SIGHUP', onSignal);
  const crash = (error: unknown) => {
    const scrub = (text: string) => (activeRun?.scrubber ?? envScrubber).text(text);
    const message = scrub(describeError(error));
    activeRun?.terminateSync({
      status: 'failed',
      exitCode: ExitCode.runFailed,
      error: { code: 'internal_error', message: `internal error: ${message}` },
    });
    const stack = error instanceof Error && error.stack ? `${scrub(error.stack)}\n` : '';
    process.stderr.write(inertText(`massgen: internal error: ${message}\n${stack}`));
    process.exit(ExitCode.runFailed);
  };
  // `massgen --list-examples | head`: a reader that went away is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  const code = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    signal: controller.signal,
    stderrIsTTY: process.stderr.isTTY === true,
    stdin: process.stdin,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    terminal: { stdout: process.stdout, stdin: process.stdin },
    // The live view reads keys in raw mode, so its `q`/Ctrl-C arrives as a request, not a signal.
    requestInterrupt: () => process.kill(process.pid, 'SIGINT'),
    onInterrupt: (listener) => {
      interruptListeners.add(listener);
      return () => interruptListeners.delete(listener);
    },
    ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
  });
  process.exitCode = code;
  // After a second Ctrl-C in interactive mode a cancelled turn may still be winding down: do not wait.
  if (code === ExitCode.interrupted) process.exit(code);
}
