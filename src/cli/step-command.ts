import path from 'node:path';
import { Command } from 'commander';
import { isExampleRef, resolveExampleRef, type Env } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { describeError, exitCodeForError, ExitCode, MassGenError } from '../types/errors.js';
import { inertJson } from '../util/terminal-text.js';

/** `massgen step`'s own command line. */
export interface StepCliOptions {
  sessionDir: string;
  config?: string;
  agent?: string;
  present: boolean;
  status: boolean;
  logs: boolean;
  question: string | undefined;
}

const stepExamples = `
Examples:
  $ massgen step --session-dir run1 --config team.yaml --agent alpha "What is 6 x 7?"
  $ massgen step --session-dir run1 --config team.yaml --agent beta
  $ massgen step --session-dir run1 --status
  $ massgen step --session-dir run1 --config team.yaml --agent alpha --present

Each call prints one JSON object: the action ("new_answer", "vote" or "final_answer"), whether it
counted, and the standing ("next": "step", "present" or "done"). Format: docs/step-mode.md.`;

/** Parses `massgen step …` (the arguments after `step`). */
export function parseStepArgs(argv: readonly string[]): StepCliOptions {
  const program = new Command('massgen step')
    .description(
      'One agent takes one workflow action (an answer or a vote) against the session in --session-dir, and prints it as JSON.',
    )
    .argument('[question...]', 'the question (needed for the first step of a session)')
    .requiredOption('--session-dir <dir>', 'the session folder: session.json and the steps’ logs')
    .option('-c, --config <file>', 'a config holding the agent (a YAML/JSON file or @examples/NAME)')
    .option('--agent <id>', 'the agent that acts (may be left out when the config has one agent)')
    .option('--present', 'the winner writes the final answer instead', false)
    .option('--status', 'print where the session stands, without running an agent', false)
    .option('--no-logs', 'do not write a log folder for this step')
    .addHelpText('after', stepExamples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const words = program.args;
  return {
    ...program.opts<Omit<StepCliOptions, 'question'>>(),
    question: words.length > 0 ? words.join(' ') : undefined,
  };
}

/** What `massgen step` needs from the process. */
export interface StepCommandIo {
  cwd: string;
  env: Env;
  stdout: Write;
  stderr: Write;
  signal?: AbortSignal;
  scrub: (text: string) => string;
}

/** Runs one step and prints its JSON; returns the exit code (0, 1 for bad input, 2 failed, 130). */
export async function runStepCommand(options: StepCliOptions, io: StepCommandIo): Promise<number> {
  const fail = (error: unknown) => {
    io.stderr(io.scrub(`massgen step: error: ${describeError(error)}\n`));
    if (error instanceof MassGenError && error.hint) io.stderr(io.scrub(`hint: ${error.hint}\n`));
    return exitCodeForError(error);
  };
  // Loaded only for this command: the run machinery a plain `massgen step --status` does not need.
  const { readStepStanding, runStep } = await import('../app/step-run.js');
  try {
    if (options.status) {
      const standing = readStepStanding(path.resolve(io.cwd, options.sessionDir));
      if (!standing) {
        io.stderr(`massgen step: error: no session in ${options.sessionDir} yet\n`);
        return ExitCode.config;
      }
      // Answers and votes quote models: the JSON spells what a terminal would act on as `\uXXXX`.
      io.stdout(`${io.scrub(inertJson(standing))}\n`);
      return ExitCode.success;
    }
    if (!options.config) {
      io.stderr('massgen step: error: --config FILE is needed: the config holding the agent that acts\n');
      return ExitCode.config;
    }
    const output = await runStep({
      sessionDir: options.sessionDir,
      config: isExampleRef(options.config) ? resolveExampleRef(options.config) : options.config,
      ...(options.agent === undefined ? {} : { agentId: options.agent }),
      ...(options.question === undefined ? {} : { question: options.question }),
      action: options.present ? 'present' : 'turn',
      cwd: io.cwd,
      env: io.env,
      ...(options.logs ? {} : { logging: false }),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    io.stdout(`${io.scrub(inertJson(output))}\n`);
    if (output.error) io.stderr(io.scrub(`massgen step: ${output.status}: ${output.error.message}\n`));
    return output.exit_code;
  } catch (error) {
    return fail(error);
  }
}
