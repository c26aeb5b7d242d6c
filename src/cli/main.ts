import os from 'node:os';
import {
  configJsonSchema,
  describeSandbox,
  discoverConfig,
  isExampleRef,
  listBackends,
  loadUserEnv,
  resolveExampleRef,
  runScrubber,
  type MassGenConfig,
} from '../app/essentials.js';
import { CancelledError, ExitCode, describeError, exitCodeForError } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';
import { UsageError, printError, type CliIo } from './cli-io.js';
import { cliState } from './cli-state.js';
import { configFrom } from './config-from.js';
import { printExample, printExampleList } from './examples-command.js';
import { printBackendList } from './list-backends-command.js';
import { canAskOnTerminal, runOneQuestion } from './one-question-run.js';
import { parseCli, type CliOptions } from './program.js';
import { gateProject, projectConfigFilter, projectEnvAllowed } from './project-trust-gate.js';
import { createRunView } from './run-view.js';
import { commanderExit, stoppedBy } from './subcommand-setup.js';
import { printValidationReport } from './validate-command.js';

export type { CliIo } from './cli-io.js';

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
  if (argv[0] === 'serve') {
    const { runServeCli } = await import('./serve-command.js');
    return runServeCli(argv.slice(1), io);
  }
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
    const parseExit = commanderExit('', error, io);
    if (parseExit !== undefined) return parseExit;
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
    cliState.envScrubber = runScrubber(null, env);
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
    printBackendList(io.stdout, await listBackends(userEnv()), options.json, describeSandbox(userEnv()));
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
      const report = await validateConfig(file, { cwd: io.cwd, env: userEnv() });
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
      onActiveRun: (run) => (cliState.run = run),
      ...(options.logs ? {} : { logging: false }),
      ...(options.orchestratorTimeout === undefined
        ? {}
        : { orchestratorTimeoutSeconds: options.orchestratorTimeout }),
      ...(options.evalCriteria === undefined ? {} : { evalCriteria: options.evalCriteria }),
    });
  }

  return runOneQuestion(options, io, { home, discovered, gate, userEnv });
}

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
      if (!cliState.view?.live)
        process.stderr.write(
          `\nmassgen: ${signal} received — cancelling and writing logs (press Ctrl-C again to quit at once)\n`,
        );
      controller.abort(new CancelledError(`interrupted by ${signal}`));
    } else {
      // No more waiting: the logs still end in a terminal state (status.json, events.jsonl).
      cliState.run?.terminateSync({
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
    const scrub = (text: string) => (cliState.run?.scrubber ?? cliState.envScrubber).text(text);
    const message = scrub(describeError(error));
    cliState.run?.terminateSync({
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
