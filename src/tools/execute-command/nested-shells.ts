/**
 * Code given as text rather than as a file: `eval`, `bash -c`, a script fed to a shell's standard
 * input, and the command strings other programs run (`watch`, `flock -c`, `rsync -e`…). The text is
 * parsed and analysed like the command itself, in this shell or in a new one.
 */
import {
  type Analysis,
  type Ctx,
  type Frame,
  MAX_DEPTH,
  type Outcome,
  refuse,
  same,
  type Stdin,
} from './analysis-context.js';
import { runScriptFile } from './script-files.js';
import { type List, parseShell, ShellSyntaxError } from './shell-parser.js';
import { childShell } from './shell-state.js';
import type { Arg } from './shell-words.js';

/** Parses and analyses code given as text (eval, bash -c, traps…); in this shell or a new one. */
export async function runCode(
  analysis: Analysis,
  text: string,
  what: string,
  ctx: Ctx,
  sameShell: boolean,
): Promise<Outcome> {
  if (ctx.f.depth >= MAX_DEPTH) refuse(`${what} nests commands too deeply to check.`);
  let list: List;
  try {
    list = parseShell(text);
  } catch (error) {
    if (error instanceof ShellSyntaxError) {
      refuse(`the code run by ${what} could not be parsed (${error.message}). Simplify it.`);
    }
    throw error;
  }
  const f: Frame = { ...ctx.f, depth: ctx.f.depth + 1, definite: sameShell && ctx.f.definite };
  const out = await analysis.list(list, {
    cwds: ctx.cwds,
    sh: sameShell ? ctx.sh : childShell(analysis.options, ctx.sh),
    f,
  });
  return sameShell ? out : same(ctx.cwds);
}

/** Code from arguments (one word, or several joined like `watch` does). */
export async function runCommandText(
  analysis: Analysis,
  args: Arg | Arg[],
  ctx: Ctx,
  what: string,
): Promise<void> {
  const list = Array.isArray(args) ? args : [args];
  if (list.length === 0) return;
  if (list.some((a) => a.dynamic)) {
    if (ctx.f.strict)
      refuse(`${what} runs a command only known when the command runs, so it cannot be checked.`);
    return;
  }
  await runCode(analysis, list.map((a) => a.text).join(' '), what, ctx, false);
}

/** `eval words…`: the words joined are code run in this shell. */
export async function analyseEval(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  if (args.some((a) => a.dynamic)) {
    if (!ctx.f.strict) return same(ctx.cwds);
    refuse(
      'it evaluates text that is only known when the command runs, so it cannot be checked. Write the commands out directly.',
    );
  }
  return runCode(analysis, args.map((a) => a.text).join(' '), 'eval', ctx, true);
}

/** `bash`, `sh`…: code from `-c`, a script file, or standard input (heredoc, here-string, file or pipe). */
export async function analyseShell(
  analysis: Analysis,
  args: Arg[],
  ctx: Ctx,
  stdin: Stdin,
): Promise<Outcome> {
  let commandMode = false;
  let stdinMode = false;
  const operands: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const t = arg.text;
    if (arg.dynamic || operands.length > 0 || !/^[-+]/.test(t) || t === '-' || t === '+') {
      operands.push(arg);
      continue;
    }
    if (t === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      if (['--login', '--interactive', '--rcfile', '--init-file'].includes(t)) {
        refuse(
          'login and interactive shells read startup files that cannot be checked. Use bash -c "…" instead.',
        );
      }
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const letter = t[j]!;
      if (letter === 'c') commandMode = true;
      else if (letter === 's') stdinMode = true;
      else if (letter === 'i' || letter === 'l') {
        refuse(
          'login and interactive shells read startup files that cannot be checked. Use bash -c "…" instead.',
        );
      } else if (letter === 'o' || letter === 'O') {
        const option = args[++i];
        if (option && (option.dynamic || option.text === 'expand_aliases')) {
          refuse('it turns on alias expansion, which would let aliases run commands that were not checked.');
        }
        break;
      }
    }
  }
  if (commandMode) {
    const [code, , ...params] = operands;
    if (!code) return same(ctx.cwds);
    if (code.dynamic) {
      if (ctx.f.strict) {
        refuse(
          'it runs "bash -c" with a command only known when the command runs, so it cannot be checked. Write the command out directly.',
        );
      }
      return same(ctx.cwds);
    }
    const child: Ctx = { ...ctx, sh: childShell(analysis.options, ctx.sh) };
    child.sh.positional = params.map((p) => (p.dynamic ? null : p.text));
    await runCode(analysis, code.text, 'bash -c', child, true);
    return same(ctx.cwds);
  }
  const [file] = operands;
  if (file && !stdinMode) {
    for (const real of await analysis.paths.checkArg(file, 'read', ctx, 'runs the script')) {
      await runScriptFile(analysis, real, file.raw, ctx, { sameShell: false, ifShell: false });
    }
    return same(ctx.cwds);
  }
  switch (stdin.kind) {
    case 'none':
      return same(ctx.cwds);
    case 'text':
      if (stdin.text === null) {
        if (ctx.f.strict)
          refuse('it feeds a shell a script only known when the command runs, so it cannot be checked.');
        return same(ctx.cwds);
      }
      await runCode(analysis, stdin.text, 'the shell', ctx, false);
      return same(ctx.cwds);
    case 'file':
      for (const real of await analysis.paths.checkArg(stdin.arg, 'read', ctx, 'runs the script')) {
        await runScriptFile(analysis, real, stdin.arg.raw, ctx, { sameShell: false, ifShell: false });
      }
      return same(ctx.cwds);
    case 'pipe':
      if (!ctx.f.strict) return same(ctx.cwds);
      return refuse(
        'it pipes text into a shell, which runs it without it being checked. Run the commands directly instead.',
      );
  }
}
