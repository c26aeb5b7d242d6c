/**
 * One analysis of one command: walks the whole command, then the code it leaves to run later
 * (traps, aliases, command variables, functions never called), then the checks that need the whole
 * picture. The per-construct modules do the work; this class holds what they share.
 */
import {
  type Analysis,
  type CommandPolicyOptions,
  type Ctx,
  type DeferredCode,
  type Frame,
  type Invocation,
  MAX_STEPS,
  type Outcome,
  refuse,
} from './analysis-context.js';
import { walkCommand, walkList } from './ast-walker.js';
import { runCode } from './nested-shells.js';
import { PathChecker } from './path-checker.js';
import { invokeProgram } from './program-dispatch.js';
import type { Command, List, Word, WordPart } from './shell-ast.js';
import { parseShell } from './shell-parser.js';
import { initialShell } from './shell-state.js';
import type { Arg, Ch } from './shell-words.js';
import { expandParts, expandWord } from './word-expansion.js';

/** Used once per command: the facts it gathers must not leak into the next command. */
export class Analyzer implements Analysis {
  readonly home: string;
  readonly paths: PathChecker;
  readonly allCwds = new Set<string>();
  readonly deferred: DeferredCode[] = [];
  readonly functionsDefined = new Map<string, { body: Command; strict: boolean }>();
  readonly functionsInlined = new Set<string>();
  arithmetic = false;
  suspiciousValue = false;
  private steps = 0;

  constructor(readonly options: CommandPolicyOptions) {
    this.home = options.workspace;
    this.paths = new PathChecker(options, () => this.tick());
  }

  async run(command: string): Promise<void> {
    // The classic spelling; recursion in general is caught when functions are expanded.
    const bomb =
      command.length <= 4096 && /([A-Za-z_:.][\w:.-]*)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*\1\s*&/.test(command);
    if (bomb) refuse('it is a fork bomb (a function that keeps starting copies of itself).');
    const list = parseShell(command);
    const start = [this.options.workspace];
    this.allCwds.add(this.options.workspace);
    const f: Frame = { strict: true, definite: true, stdinPipe: false, inlining: [], depth: 0 };
    await this.list(list, { cwds: start, sh: initialShell(this.options), f });

    // Code that runs later, from wherever the command then is: traps, aliases, command variables,
    // and functions never called directly.
    const functions = (): Map<string, Command> =>
      new Map([...this.functionsDefined].map(([name, { body }]) => [name, body]));
    for (let i = 0; i < this.deferred.length; i++) {
      const { text, what, strict } = this.deferred[i]!;
      const sh = initialShell(this.options);
      sh.functions = functions();
      await runCode(this, text, what, { cwds: [...this.allCwds], sh, f: { ...f, strict } }, false);
    }
    for (const [name, { body, strict }] of this.functionsDefined) {
      if (this.functionsInlined.has(name)) continue;
      const sh = initialShell(this.options);
      sh.functions = functions();
      await this.command(body, {
        cwds: [...this.allCwds],
        sh,
        f: { ...f, strict, definite: false, inlining: [name] },
      });
    }
    if (this.arithmetic && this.suspiciousValue) {
      refuse(
        'it stores text containing $(…) or backticks in a variable and also evaluates arithmetic, where bash would run that text as a command. Write the commands out directly.',
      );
    }
  }

  tick(): void {
    if (++this.steps > MAX_STEPS)
      refuse('it is too long or complex to check. Split it into simpler commands.');
  }

  list(list: List, ctx: Ctx): Promise<Outcome> {
    return walkList(this, list, ctx);
  }

  command(command: Command, ctx: Ctx): Promise<Outcome> {
    return walkCommand(this, command, ctx);
  }

  invoke(args: Arg[], ctx: Ctx, io: Invocation): Promise<Outcome> {
    return invokeProgram(this, args, ctx, io);
  }

  expand(word: Word, ctx: Ctx): Promise<Arg[]> {
    return expandWord(this, word, ctx);
  }

  chars(parts: readonly WordPart[], ctx: Ctx): Promise<Ch[]> {
    return expandParts(this, parts, ctx);
  }
}
