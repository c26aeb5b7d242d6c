/**
 * Running one program: refusals first, then the program's kind decides how its arguments are read —
 * shell functions are expanded in place, wrappers and shells lead to the code they run, and known
 * programs have their written and read files told apart. The order of the checks matters: a name is
 * handled by the first kind it belongs to.
 */
import path from 'node:path';
import {
  type Analysis,
  type Ctx,
  type Invocation,
  MAX_DEPTH,
  type Outcome,
  quote,
  refuse,
  same,
} from './analysis-context.js';
import { analyseTar, analyseUnzip, analyseZip } from './archive-programs.js';
import { analyseInterpreter, analysePatternFirst, analyseSed } from './code-operand-programs.js';
import { INTERPRETERS, SHELLS, WRAPPERS } from './code-runner-rules.js';
import {
  analyseEnv,
  analyseFind,
  analyseFlock,
  analyseOtherProgram,
  analyseScript,
  analyseWatch,
  analyseWrapper,
  analyseXargs,
} from './command-wrappers.js';
import { analyseRsync, analyseTransfer } from './copy-programs.js';
import { OUTPUT_OPTIONS, PATTERN_FIRST, TRANSFER, WRITE_ALL } from './file-argument-rules.js';
import {
  analyseChmod,
  analyseDd,
  analyseOutputOptions,
  analyseSplit,
  analyseUniq,
  analyseWriteAll,
} from './file-writers.js';
import { analyseGit } from './git-command.js';
import { analyseEval, analyseShell } from './nested-shells.js';
import { hasFlag, parseArgs } from './parse-args.js';
import { inSystemDir } from './path-rules.js';
import { refusedProgram } from './refused-programs.js';
import { analyseSource, runScriptFile } from './script-files.js';
import {
  analyseAlias,
  analyseEnable,
  analyseHash,
  analyseSet,
  analyseShopt,
  analyseTrap,
  changeDirectory,
} from './shell-builtins.js';
import type { Arg } from './shell-words.js';
import { analyseDeclare, analyseVariableBuiltin } from './variable-assignments.js';

/** Checks one program with its arguments; the folders the shell may be in afterwards. */
export async function invokeProgram(
  analysis: Analysis,
  args: Arg[],
  ctx: Ctx,
  io: Invocation,
): Promise<Outcome> {
  analysis.tick();
  const [first, ...rest] = args;
  if (!first) return same(ctx.cwds);
  if (first.dynamic) {
    if (ctx.f.strict) {
      refuse(
        `the program to run, ${quote(first.raw)}, is only known when the command runs, so the command cannot be checked. Write the program name out literally.`,
      );
    }
    await analysis.paths.readArgs(rest, ctx);
    return same(ctx.cwds);
  }
  if (first.glob && ctx.f.strict) {
    refuse(`the program to run, ${quote(first.raw)}, is a pattern; write the program name out literally.`);
  }
  const name = first.text;
  const base = name.includes('/') ? path.posix.basename(name) : name;
  if (io.functions && !name.includes('/') && ctx.sh.functions.has(name))
    return inlineFunction(analysis, name, rest, ctx);

  const refusal = refusedProgram(base, rest);
  if (refusal !== null) refuse(refusal);
  if (name.includes('/') && !inSystemDir(name)) {
    const files = await analysis.paths.checkArg(first, 'read', ctx, 'runs');
    for (const file of files)
      await runScriptFile(analysis, file, first.raw, ctx, { sameShell: false, ifShell: true });
  }

  const wrapper = WRAPPERS[base];
  if (wrapper) return analyseWrapper(analysis, base, wrapper, rest, ctx, io);
  if (SHELLS.has(base)) return analyseShell(analysis, rest, ctx, io.stdin);
  const write = WRITE_ALL[base];
  if (write) return analyseWriteAll(analysis, base, write, rest, ctx);
  const transfer = TRANSFER[base];
  if (transfer) return analyseTransfer(analysis, base, transfer, rest, ctx);
  const output = OUTPUT_OPTIONS[base];
  if (output) return analyseOutputOptions(analysis, base, output, rest, ctx);
  const interpreter = INTERPRETERS[base];
  if (interpreter) return analyseInterpreter(analysis, interpreter, rest, ctx);
  const patternFirst = PATTERN_FIRST[base];
  if (patternFirst) return analysePatternFirst(analysis, base, patternFirst, rest, ctx);

  switch (base) {
    case 'exit':
      // Nothing after it runs in this shell.
      return { ok: [], fail: [] };
    case 'cd':
    case 'pushd':
      return changeDirectory(analysis, base, rest, ctx);
    case 'popd':
      return { ok: [...analysis.allCwds], fail: ctx.cwds };
    case 'command': {
      const parsed = parseArgs(rest, { stopAtOperand: true });
      if (hasFlag(parsed, '-v', '-V')) return same(ctx.cwds);
      return analysis.invoke(parsed.operands, ctx, { ...io, functions: false });
    }
    case 'builtin':
      return analysis.invoke(rest, ctx, { ...io, functions: false });
    case 'exec': {
      const parsed = parseArgs(rest, { short: 'a', stopAtOperand: true });
      return analysis.invoke(parsed.operands, ctx, { ...io, functions: false });
    }
    case 'env':
      return analyseEnv(analysis, rest, ctx, io);
    case 'xargs':
      return analyseXargs(analysis, rest, ctx);
    case 'find':
      return analyseFind(analysis, rest, ctx);
    case 'eval':
      return analyseEval(analysis, rest, ctx);
    case 'source':
    case '.':
      return analyseSource(analysis, rest, ctx);
    case 'trap':
      return analyseTrap(analysis, rest, ctx);
    case 'alias':
      return analyseAlias(analysis, rest, ctx);
    case 'shopt':
      return analyseShopt(rest, ctx);
    case 'hash':
      return analyseHash(rest, ctx);
    case 'enable':
      return analyseEnable(rest, ctx);
    case 'script':
      return analyseScript(analysis, rest, ctx);
    case 'set':
      return analyseSet(rest, ctx);
    case 'shift':
      ctx.sh.positional = null;
      return same(ctx.cwds);
    case 'export':
    case 'declare':
    case 'typeset':
    case 'local':
    case 'readonly':
      return analyseDeclare(analysis, base, rest, ctx);
    case 'read':
    case 'mapfile':
    case 'readarray':
    case 'getopts':
    case 'printf':
    case 'let':
    case 'unset':
      return analyseVariableBuiltin(analysis, base, rest, ctx);
    case 'rsync':
      return analyseRsync(analysis, rest, ctx);
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return analyseChmod(analysis, base, rest, ctx);
    case 'dd':
      return analyseDd(analysis, rest, ctx);
    case 'sed':
      return analyseSed(analysis, rest, ctx);
    case 'tar':
      return analyseTar(analysis, rest, ctx);
    case 'unzip':
      return analyseUnzip(analysis, rest, ctx);
    case 'zip':
      return analyseZip(analysis, rest, ctx);
    case 'uniq':
      return analyseUniq(analysis, rest, ctx);
    case 'split':
    case 'csplit':
      return analyseSplit(analysis, base, rest, ctx);
    case 'git':
      return analyseGit(analysis, rest, ctx);
    case 'watch':
      return analyseWatch(analysis, rest, ctx, io);
    case 'flock':
      return analyseFlock(analysis, rest, ctx, io);
    default:
      return analyseOtherProgram(analysis, base, rest, ctx);
  }
}

/** A call of a shell function: its body runs here with the arguments as positional parameters. */
async function inlineFunction(analysis: Analysis, name: string, args: Arg[], ctx: Ctx): Promise<Outcome> {
  if (ctx.f.inlining.includes(name)) {
    refuse(
      `the function ${quote(name)} calls itself; recursive shell functions (the fork-bomb pattern) are not run.`,
    );
  }
  if (ctx.f.inlining.length > MAX_DEPTH) refuse('its functions nest too deeply to check.');
  analysis.functionsInlined.add(name);
  const body = ctx.sh.functions.get(name)!;
  const saved = ctx.sh.positional;
  ctx.sh.positional = args.map((a) => (a.dynamic ? null : a.text));
  try {
    return await analysis.command(body, {
      ...ctx,
      f: { ...ctx.f, definite: false, inlining: [...ctx.f.inlining, name] },
    });
  } finally {
    ctx.sh.positional = saved;
  }
}
