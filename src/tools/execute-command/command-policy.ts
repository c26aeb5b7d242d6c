/**
 * The static check `execute_command` runs before a command: it parses the command like bash would,
 * follows `cd` and known variables, looks inside `$(…)`, backticks, `eval`, `bash -c` and shell
 * scripts, and asks {@link CommandPolicyOptions.checkPath} about every path the command reads or writes. It refuses what
 * it cannot follow. This is defence in depth: the command still runs contained (own process group,
 * scrubbed environment, or a container), because no static check sees inside other programs.
 *
 * This file is the entry point; the analysis itself starts in {@link Analyzer}.
 */
import { type CommandPolicyOptions, Refusal } from './analysis-context.js';
import { Analyzer } from './analyzer.js';
import { ShellSyntaxError } from './shell-parser.js';

export type { CommandPolicyOptions };

export type CommandVerdict = { allowed: true } | { allowed: false; reason: string };

/** Checks a command before it runs. Never throws: anything unexpected is a refusal. */
export async function analyseCommand(
  command: string,
  options: CommandPolicyOptions,
): Promise<CommandVerdict> {
  try {
    await new Analyzer(options).run(command);
    return { allowed: true };
  } catch (error) {
    if (error instanceof Refusal) return { allowed: false, reason: `Command not run: ${error.reason}` };
    if (error instanceof ShellSyntaxError) {
      return {
        allowed: false,
        reason: `Command not run: it could not be parsed (${error.message}). Fix the syntax, or split it into simpler commands.`,
      };
    }
    return {
      allowed: false,
      reason: 'Command not run: it is too complex to check safely. Split it into simpler commands.',
    };
  }
}
