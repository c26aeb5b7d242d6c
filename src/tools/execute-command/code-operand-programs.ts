/**
 * Programs whose operands start with code or a pattern rather than files: interpreters
 * (`python`, `node`…), pattern programs (`grep`, `awk`, `jq`…) and `sed`. The code is not a path,
 * but what it visibly opens or runs (awk redirections, sed `w` and `e`) is checked.
 */
import { type Analysis, type Ctx, type Outcome, refuse, same } from './analysis-context.js';
import type { INTERPRETERS } from './code-runner-rules.js';
import type { PATTERN_FIRST } from './file-argument-rules.js';
import { hasFlag, parseArgs, valuesOf } from './parse-args.js';
import { type Arg, literalArg, looksLikePath, sliceArg } from './shell-words.js';

/** `python script.py`, `node -e code`…: the script file is read, and so are the other operands (written with `-i`). */
export async function analyseInterpreter(
  analysis: Analysis,
  interpreter: (typeof INTERPRETERS)[string],
  rest: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const parsed = parseArgs(rest, interpreter);
  const programGiven = interpreter.program.some((option) => parsed.values.has(option));
  const [script, ...operands] = parsed.operands;
  if (script && !programGiven)
    await analysis.paths.readArg(
      script.dynamic || looksLikePath(script.text) ? script : literalArg(`./${script.text}`, script.raw),
      ctx,
    );
  const files = programGiven ? parsed.operands : operands;
  if (interpreter.inPlace === true && hasFlag(parsed, '-i'))
    await analysis.paths.writeArgs(files, ctx, 'edits');
  else await analysis.paths.readArgs(files, ctx);
  return same(ctx.cwds);
}

/** `grep`, `awk`, `jq`…: the first operand is a pattern or program; awk programs that run commands are refused. */
export async function analysePatternFirst(
  analysis: Analysis,
  base: string,
  spec: (typeof PATTERN_FIRST)[string],
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const parsed = parseArgs(args, spec);
  for (const file of valuesOf(parsed, ...(spec.fileOptions ?? [])))
    await analysis.paths.checkArg(file, 'read', ctx);
  for (const file of valuesOf(parsed, '--slurpfile', '--rawfile')) await analysis.paths.readArg(file, ctx);
  const given = spec.patternOptions.some((option) => parsed.values.has(option));
  const pattern = given ? undefined : parsed.operands[0];
  const files = given ? parsed.operands : parsed.operands.slice(1);
  if (pattern && /awk$/.test(base) && !pattern.dynamic) {
    const program = pattern.text;
    if (/\bsystem\s*\(|\|\s*getline|\b(print|printf)\b[^;\n}]*\|\s*["\w$]/.test(program) && ctx.f.strict) {
      refuse(
        'the awk program runs shell commands (system() or a pipe), which cannot be checked. Run those commands directly.',
      );
    }
    for (const match of program.matchAll(/\b(?:print|printf)\b[^;\n}]*?>{1,2}\s*"([^"]+)"/g)) {
      await analysis.paths.checkArg(literalArg(match[1]!), 'write', ctx);
    }
  }
  await analysis.paths.readArgs(files, ctx);
  return same(ctx.cwds);
}

/** `sed`: the script's `w`/`r` files are checked, its `e` command refused, and `-i` edits the operands. */
export async function analyseSed(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  let inPlace = false;
  const scripts: string[] = [];
  let scriptGiven = false;
  const operands: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const t = arg.text;
    if (arg.dynamic || !t.startsWith('-') || t === '-') {
      operands.push(arg);
      continue;
    }
    if (t === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const [name, value] = t.includes('=')
        ? [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]
        : [t, undefined];
      if ('--in-place'.startsWith(name) && name.length > 3) inPlace = true;
      else if ('--expression'.startsWith(name) && name.length > 3) {
        scriptGiven = true;
        const script = value ?? args[++i]?.text;
        if (script !== undefined) scripts.push(script);
      } else if ('--file'.startsWith(name) && name.length > 3) {
        scriptGiven = true;
        const file = value !== undefined ? sliceArg(arg, t.indexOf('=') + 1) : args[++i];
        if (file) await analysis.paths.checkArg(file, 'read', ctx);
      }
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const letter = t[j]!;
      if (letter === 'i') {
        inPlace = true;
        break;
      }
      if (letter === 'e' || letter === 'f' || letter === 'l') {
        const value = j + 1 < t.length ? sliceArg(arg, j + 1) : args[++i];
        if (letter === 'e' && value) {
          scriptGiven = true;
          if (value.dynamic && ctx.f.strict) refuse('the sed script is only known when the command runs.');
          scripts.push(value.text);
        }
        if (letter === 'f' && value) {
          scriptGiven = true;
          await analysis.paths.checkArg(value, 'read', ctx);
        }
        break;
      }
    }
  }
  if (!scriptGiven) {
    const script = operands.shift();
    if (script) {
      if (script.dynamic && ctx.f.strict) refuse('the sed script is only known when the command runs.');
      scripts.push(script.text);
    }
  }
  for (const script of scripts) {
    if (/(?:^|[\n;{}])\s*e(?:\s|$|;)|\/[gpIiMm0-9]*e[gpIiMm0-9w]*(?:\s|$|;|\})/.test(script)) {
      refuse('the sed script uses the e command or flag, which runs shell commands that cannot be checked.');
    }
    for (const match of script.matchAll(/(?:^|[\n;{}/0-9$!])\s*[wW]\s+([^\n;}]+)/g)) {
      const file = match[1]!.trim();
      if (file !== '/dev/stdout' && file !== '/dev/stderr')
        await analysis.paths.checkArg(literalArg(file), 'write', ctx);
    }
    for (const match of script.matchAll(/(?:^|[\n;{}/0-9$!])\s*[rR]\s+([^\n;}]+)/g)) {
      const file = match[1]!.trim();
      if (looksLikePath(file)) await analysis.paths.checkArg(literalArg(file), 'read', ctx);
    }
  }
  if (inPlace) await analysis.paths.writeArgs(operands, ctx, 'edits');
  else await analysis.paths.readArgs(operands, ctx);
  return same(ctx.cwds);
}
