/**
 * Programs that run other programs: wrappers (`nice`, `timeout`…), `env`, `xargs`, `find -exec`,
 * `script`, `watch`, `flock`, and unknown programs whose arguments name a command. The command they
 * run is analysed as a separate process, so its `cd` does not move this shell.
 */
import path from 'node:path';
import {
  type Analysis,
  type Ctx,
  type Invocation,
  type Outcome,
  quote,
  refuse,
  same,
} from './analysis-context.js';
import { SHELLS, type WRAPPERS } from './code-runner-rules.js';
import { NO_PATH_ARGS, TRANSFER, WRITE_ALL } from './file-argument-rules.js';
import { runCommandText } from './nested-shells.js';
import { hasFlag, parseArgs, valuesOf } from './parse-args.js';
import { refusedProgram } from './refused-programs.js';
import { changeDirectory } from './shell-builtins.js';
import { childShell, forkShell } from './shell-state.js';
import { type Arg, literalArg, looksLikePath, sliceArg } from './shell-words.js';
import { checkAssignedPath } from './variable-assignments.js';
import { COMMAND_VARS, PROTECTED_VARS } from './variable-rules.js';

/** `nice`, `timeout`, `strace`…: the command after their own options runs in another process. */
export async function analyseWrapper(
  analysis: Analysis,
  base: string,
  wrapper: (typeof WRAPPERS)[string],
  rest: Arg[],
  ctx: Ctx,
  io: Invocation,
): Promise<Outcome> {
  const parsed = parseArgs(rest, wrapper);
  if (base === 'time') await analysis.paths.writeArgs(valuesOf(parsed, '-o', '--output'), ctx);
  const command = parsed.operands.slice(wrapper.skipOperands ?? 0);
  // Another process: a `cd` in there does not move this shell.
  await analysis.invoke(command, ctx, { ...io, functions: false });
  return same(ctx.cwds);
}

/** `env [-C dir] [NAME=value…] command`: a new process with a changed environment, maybe elsewhere. */
export async function analyseEnv(
  analysis: Analysis,
  args: Arg[],
  ctx: Ctx,
  io: Invocation,
): Promise<Outcome> {
  const parsed = parseArgs(args, {
    short: 'uCS',
    long: ['unset', 'chdir', 'split-string'],
    stopAtOperand: true,
  });
  if (parsed.values.has('-S') || parsed.values.has('--split-string')) {
    refuse(
      '"env -S" splits a string into a command, which cannot be checked. Write the command out directly.',
    );
  }
  let cwds = ctx.cwds;
  for (const dir of valuesOf(parsed, '-C', '--chdir'))
    cwds = (await changeDirectory(analysis, 'cd', [dir], ctx)).ok;
  const command = [...parsed.operands];
  while (command[0] && !command[0].dynamic && /^[A-Za-z_][A-Za-z0-9_]*=/.test(command[0].text)) {
    const assignment = command.shift()!;
    const name = assignment.text.slice(0, assignment.text.indexOf('='));
    if (PROTECTED_VARS.has(name))
      refuse(`it sets ${name}, which changes where programs find files or what they run at startup.`);
    const value = sliceArg(assignment, name.length + 1);
    if (COMMAND_VARS.has(name))
      analysis.deferred.push({ text: value.text, what: name, strict: ctx.f.strict });
    if (!value.dynamic) await checkAssignedPath(analysis, name, value.text, assignment.raw, { ...ctx, cwds });
  }
  if (command[0]?.dynamic) {
    if (ctx.f.strict)
      refuse(`it passes ${quote(command[0].raw)} to env, which is only known when the command runs.`);
    return same(ctx.cwds);
  }
  await analysis.invoke(
    command,
    { ...ctx, cwds, sh: childShell(analysis.options, ctx.sh) },
    { ...io, functions: false },
  );
  return same(ctx.cwds);
}

/** `xargs command`: the arguments come from standard input, so they are unknown paths for the command. */
export async function analyseXargs(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  const parsed = parseArgs(args, {
    short: 'adEeIiLlnPs',
    long: [
      'arg-file',
      'delimiter',
      'eof',
      'replace',
      'max-lines',
      'max-args',
      'max-procs',
      'max-chars',
      'process-slot-var',
    ],
    stopAtOperand: true,
  });
  for (const file of valuesOf(parsed, '-a', '--arg-file')) await analysis.paths.checkArg(file, 'read', ctx);
  const replace = [...valuesOf(parsed, '-I', '--replace'), ...valuesOf(parsed, '-i')].map((a) => a.text);
  if (hasFlag(parsed, '-i', '--replace') && replace.length === 0) replace.push('{}');
  const unknown: Arg = {
    raw: 'the paths xargs reads from its input',
    text: '',
    known: '',
    dynamic: true,
    glob: false,
    chars: [],
  };
  const command = parsed.operands.length > 0 ? parsed.operands : [literalArg('echo')];
  const expanded =
    replace.length > 0
      ? command.map((a) =>
          !a.dynamic && replace.some((r) => a.text.includes(r)) ? { ...unknown, raw: a.raw } : a,
        )
      : [...command, unknown];
  await analysis.invoke(
    expanded,
    { ...ctx, sh: childShell(analysis.options, ctx.sh) },
    { stdin: { kind: 'none' }, functions: false },
  );
  return same(ctx.cwds);
}

/** `find start… expression`: `-delete` writes under the starts, `-exec` runs a command per match. */
export async function analyseFind(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  let i = 0;
  while (i < args.length && !args[i]!.dynamic && /^-[HLP]$|^-D$|^-O\d*$/.test(args[i]!.text)) {
    i += args[i]!.text === '-D' ? 2 : 1;
  }
  const starts: Arg[] = [];
  while (i < args.length && (args[i]!.dynamic || !/^[-(!]/.test(args[i]!.text))) starts.push(args[i++]!);
  if (starts.length === 0) starts.push(literalArg('.'));
  const expression = args.slice(i);
  const texts = expression.map((a) => (a.dynamic ? '' : a.text));
  const writes = texts.some((t) => t === '-delete');
  if (writes) await analysis.paths.writeArgs(starts, ctx, 'deletes files under');
  else
    await analysis.paths.readArgs(
      starts.map((s) => (s.dynamic || looksLikePath(s.text) ? s : literalArg(`./${s.text}`, s.raw))),
      ctx,
    );
  for (let j = 0; j < expression.length; j++) {
    const t = texts[j];
    if (t === '-fprint' || t === '-fprint0' || t === '-fls' || t === '-fprintf') {
      const file = expression[j + 1];
      if (file) await analysis.paths.checkArg(file, 'write', ctx);
    } else if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      let end = j + 1;
      while (end < expression.length && texts[end] !== ';' && texts[end] !== '+') end++;
      const command = expression.slice(j + 1, end);
      for (const start of starts) {
        const substituted = command.map((a) =>
          !a.dynamic && a.text.includes('{}')
            ? start.dynamic
              ? start
              : literalArg(a.text.split('{}').join(start.text), a.raw)
            : a,
        );
        await analysis.invoke(
          substituted,
          { ...ctx, sh: childShell(analysis.options, ctx.sh) },
          { stdin: { kind: 'none' }, functions: false },
        );
      }
      j = end;
    } else if (
      j > 0 &&
      expression[j] &&
      !expression[j]!.dynamic &&
      ['-newer', '-samefile', '-anewer', '-cnewer'].includes(texts[j - 1] ?? '')
    ) {
      await analysis.paths.readArg(expression[j]!, ctx);
    }
  }
  return same(ctx.cwds);
}

/** `script -c code file`: the code runs in a shell, and the typescript file is written. */
export async function analyseScript(analysis: Analysis, rest: Arg[], ctx: Ctx): Promise<Outcome> {
  const parsed = parseArgs(rest, {
    short: 'cEIOBTtm',
    long: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format'],
  });
  for (const code of valuesOf(parsed, '-c', '--command'))
    await runCommandText(analysis, code, ctx, 'script -c');
  await analysis.paths.writeArgs(
    parsed.operands.length > 0 ? parsed.operands : [literalArg('typescript')],
    ctx,
  );
  return same(ctx.cwds);
}

/** `watch`: runs its operands joined as shell code, or as a program with `-x`. */
export async function analyseWatch(
  analysis: Analysis,
  rest: Arg[],
  ctx: Ctx,
  io: Invocation,
): Promise<Outcome> {
  const parsed = parseArgs(rest, {
    short: 'nd',
    long: ['interval', 'differences'],
    stopAtOperand: true,
  });
  if (hasFlag(parsed, '-x', '--exec'))
    await analysis.invoke(parsed.operands, ctx, { ...io, functions: false });
  else await runCommandText(analysis, parsed.operands, ctx, 'watch');
  return same(ctx.cwds);
}

/** `flock lockfile command…` or `flock -c code`: the lock file is written, and the command checked. */
export async function analyseFlock(
  analysis: Analysis,
  rest: Arg[],
  ctx: Ctx,
  io: Invocation,
): Promise<Outcome> {
  const parsed = parseArgs(rest, {
    short: 'wEc',
    long: ['timeout', 'conflict-exit-code', 'command'],
    stopAtOperand: true,
  });
  for (const text of valuesOf(parsed, '-c', '--command')) await runCommandText(analysis, text, ctx, 'flock');
  const [lock, ...command] = parsed.operands;
  if (lock) await analysis.paths.checkArg(lock, 'write', ctx);
  if (command.length > 0) await analysis.invoke(command, ctx, { ...io, functions: false });
  return same(ctx.cwds);
}

/**
 * Any other program: arguments that look like paths are checked for reading. Programs that run other
 * programs from their arguments (ssh, docker exec, make…) are not known one by one, so a writer or a
 * refused program among the arguments is checked as a command of its own.
 */
export async function analyseOtherProgram(
  analysis: Analysis,
  base: string,
  rest: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  if (NO_PATH_ARGS.has(base)) return same(ctx.cwds);
  await analysis.paths.readArgs(rest, ctx);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg.dynamic || arg.text.startsWith('-')) continue;
    const nestedBase = path.posix.basename(arg.text);
    if (
      WRITE_ALL[nestedBase] ||
      TRANSFER[nestedBase] ||
      SHELLS.has(nestedBase) ||
      refusedProgram(nestedBase, []) !== null ||
      ['dd', 'chmod', 'chown', 'chgrp', 'rsync', 'eval', 'kill', 'find', 'xargs', 'sed'].includes(nestedBase)
    ) {
      await analysis.invoke(
        rest.slice(i),
        { ...ctx, sh: forkShell(ctx.sh) },
        { stdin: { kind: 'none' }, functions: false },
      );
      break;
    }
  }
  return same(ctx.cwds);
}
