/**
 * Assignments and the builtins that set variables (`declare`, `export`, `read`, `let`…). Values are
 * tracked where known; variables that change where the shell looks for files are refused, variables
 * naming folders programs write to are checked for writing, and variables other programs run as
 * commands are analysed as code.
 */
import {
  type Analysis,
  type Ctx,
  type Outcome,
  quote,
  refuse,
  same,
  SAFE,
  type Value,
} from './analysis-context.js';
import { hasFlag, parseArgs, valuesOf } from './parse-args.js';
import { inSystemDir } from './path-rules.js';
import type { Assignment } from './shell-ast.js';
import { assign, pwd, setVar } from './shell-state.js';
import {
  type Arg,
  expandTilde,
  literalArg,
  looksLikeCode,
  looksLikePath,
  sliceArg,
  toArg,
} from './shell-words.js';
import { COMMAND_VARS, PROTECTED_VARS, WRITE_VARS } from './variable-rules.js';

/** `name=value` (or `name=(…)`); `prefixOnly`: it only sets the environment of the command it precedes. */
export async function analyseAssignment(
  analysis: Analysis,
  assignment: Assignment,
  ctx: Ctx,
  prefixOnly: boolean,
): Promise<void> {
  const { name } = assignment;
  if (PROTECTED_VARS.has(name)) {
    refuse(
      `it sets ${name}, which changes where the shell finds files or what it runs at startup. Leave ${name} as it is.`,
    );
  }
  let value: Value;
  if (assignment.array) {
    for (const word of assignment.array) {
      for (const arg of await analysis.expand(word, ctx)) await analysis.paths.readArg(arg, ctx);
    }
    value = null;
  } else {
    const chars = expandTilde(await analysis.chars(assignment.value!.parts, ctx), analysis.home, pwd(ctx));
    const arg = toArg(chars, assignment.raw);
    value = arg.dynamic ? null : arg.text;
    if (typeof value === 'string') {
      if (value.includes('$(') || value.includes('`')) analysis.suspiciousValue = true;
      await checkAssignedPath(analysis, name, value, assignment.raw, ctx);
    }
    if (assignment.append) value = null;
  }
  if (value === null && WRITE_VARS.test(name) && ctx.f.strict && !assignment.append) {
    refuse(
      `it points ${name} at a folder only known when the command runs. Use a literal path in your workspace.`,
    );
  }
  if (COMMAND_VARS.has(name)) {
    if (typeof value === 'string') analysis.deferred.push({ text: value, what: name, strict: ctx.f.strict });
    else if (ctx.f.strict)
      refuse(`it sets ${name}, a command other programs run, to a value only known at run time.`);
  }
  if (name === 'IFS' && !prefixOnly) ctx.sh.ifsChanged = true;
  if (!prefixOnly) setVar(ctx, name, value);
}

/**
 * A variable holding a path (or a PATH-like list): checked for reading, like an argument; for
 * writing when programs write where it points (TMPDIR, caches…).
 */
export async function checkAssignedPath(
  analysis: Analysis,
  name: string,
  value: string,
  raw: string,
  ctx: Ctx,
): Promise<void> {
  if (WRITE_VARS.test(name)) {
    await analysis.paths.checkArg(literalArg(value, raw), 'write', ctx, `points ${name} at`);
    return;
  }
  const pieces = /PATH$/.test(name) ? value.split(':') : [value];
  for (const piece of pieces) {
    if (
      !looksLikePath(piece) ||
      looksLikeCode(piece) ||
      inSystemDir(piece) ||
      /^[a-z][\w+.-]*:\/\//i.test(piece)
    )
      continue;
    await analysis.paths.checkArg(literalArg(piece, raw), 'read', ctx);
  }
}

/** `declare`, `export`, `local`, `readonly`, `typeset`: assignments given as arguments, and attributes that matter. */
export async function analyseDeclare(
  analysis: Analysis,
  base: string,
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const flags = args.filter((a) => !a.dynamic && /^[-+]\w+$/.test(a.text)).map((a) => a.text);
  if (flags.some((f) => f.startsWith('-') && f.includes('n')) && base !== 'export') {
    // A nameref makes every later assignment a possible write to any variable.
    if (ctx.f.strict)
      refuse('namerefs (declare -n) make variables impossible to follow. Use plain variables.');
    ctx.sh.namerefs = true;
  }
  if (flags.some((f) => f.includes('i'))) analysis.arithmetic = true;
  if (flags.some((f) => /[fF]/.test(f))) return same(ctx.cwds);
  for (const arg of args) {
    if (!arg.dynamic && /^[-+]\w+$/.test(arg.text)) continue;
    if (arg.dynamic) {
      const name = /^([A-Za-z_]\w*)(\+?=|$)/.exec(arg.known)?.[1];
      if (name === undefined) {
        if (ctx.f.strict)
          refuse(`it declares ${quote(arg.raw)}, whose name is only known when the command runs.`);
        continue;
      }
      if (PROTECTED_VARS.has(name)) assign(ctx, name, null);
      if (WRITE_VARS.test(name) && ctx.f.strict) {
        refuse(
          `it points ${name} at a folder only known when the command runs. Use a literal path in your workspace.`,
        );
      }
      if (COMMAND_VARS.has(name) && ctx.f.strict)
        refuse(`it sets ${name}, a command other programs run, to a value only known at run time.`);
      setVar(ctx, name, null);
      continue;
    }
    const match = /^([A-Za-z_]\w*)(\[[^\]]*\])?(\+?=)?/.exec(arg.text);
    if (!match) continue;
    const name = match[1]!;
    if (PROTECTED_VARS.has(name) && match[3] !== undefined) {
      refuse(
        `it sets ${name}, which changes where the shell finds files or what it runs at startup. Leave ${name} as it is.`,
      );
    }
    if (match[3] === undefined) {
      if (base !== 'export' && base !== 'readonly') assign(ctx, name, null);
      continue;
    }
    const value = sliceArg(arg, match[0].length);
    if (value.text.includes('$(') || value.text.includes('`')) analysis.suspiciousValue = true;
    if (COMMAND_VARS.has(name))
      analysis.deferred.push({ text: value.text, what: name, strict: ctx.f.strict });
    if (!value.dynamic) await checkAssignedPath(analysis, name, value.text, arg.raw, ctx);
    setVar(ctx, name, value.dynamic || match[2] !== undefined || match[3] === '+=' ? null : value.text);
  }
  return same(ctx.cwds);
}

/** `read`, `mapfile`, `getopts`, `printf -v`, `let`, `unset`: the variables they set become unknown (or numbers). */
export async function analyseVariableBuiltin(
  analysis: Analysis,
  base: string,
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const names = (list: Arg[]): string[] => list.filter((a) => !a.dynamic).map((a) => a.text);
  switch (base) {
    case 'read': {
      const parsed = parseArgs(args, { short: 'adinNptu' });
      for (const name of [...names(parsed.operands), ...names(valuesOf(parsed, '-a'))])
        assign(ctx, name, null);
      if (parsed.operands.length === 0) setVar(ctx, 'REPLY', null);
      break;
    }
    case 'mapfile':
    case 'readarray': {
      const parsed = parseArgs(args, { short: 'dnOsuCc' });
      if (parsed.values.has('-C')) refuse(`"${base} -C" runs a callback, which cannot be checked.`);
      for (const name of names(parsed.operands)) assign(ctx, name, null);
      break;
    }
    case 'getopts':
      for (const name of names(args.slice(1, 2))) assign(ctx, name, null);
      setVar(ctx, 'OPTARG', null);
      break;
    case 'printf': {
      const parsed = parseArgs(args.slice(0, 2), { short: 'v' });
      for (const name of names(valuesOf(parsed, '-v'))) {
        assign(ctx, name, null);
      }
      break;
    }
    case 'let':
      analysis.arithmetic = true;
      for (const arg of args) {
        const name = /^[A-Za-z_]\w*/.exec(arg.known)?.[0];
        if (name !== undefined) assign(ctx, name, SAFE);
      }
      break;
    case 'unset': {
      const parsed = parseArgs(args);
      if (hasFlag(parsed, '-f')) for (const name of names(parsed.operands)) ctx.sh.functions.delete(name);
      else for (const name of names(parsed.operands)) assign(ctx, name, null);
      break;
    }
  }
  return same(ctx.cwds);
}
