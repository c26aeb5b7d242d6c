/**
 * Programs that write files named by their operands or options: removers and creators (`rm`,
 * `mkdir`, `touch`…), outputs of compilers and filters, permission changes, `dd`, `uniq`, `split`.
 */
import path from 'node:path';
import { type Analysis, type Ctx, type Outcome, refuse, same } from './analysis-context.js';
import { analyseCurl, analyseWget } from './download-programs.js';
import type { OUTPUT_OPTIONS, WRITE_ALL } from './file-argument-rules.js';
import { runCommandText } from './nested-shells.js';
import { hasFlag, parseArgs, type ParsedArgs, valuesOf } from './parse-args.js';
import { WRITE_DEVICES } from './path-rules.js';
import { type Arg, literalArg, sliceArg } from './shell-words.js';

/** `rm`, `mkdir`, `touch`, `tee`…: every operand is written (removed ones without following a symlink). */
export async function analyseWriteAll(
  analysis: Analysis,
  base: string,
  spec: (typeof WRITE_ALL)[string],
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const parsed = parseArgs(args, spec);
  for (const ref of valuesOf(parsed, ...(spec.readValues ?? [])))
    await analysis.paths.checkArg(ref, 'read', ctx);
  if (base === 'rm') refuseRootRemoval(analysis, parsed);
  const deletes = base === 'rm' || base === 'rmdir' || base === 'unlink';
  await analysis.paths.writeArgs(
    parsed.operands,
    ctx,
    deletes || base === 'shred' ? 'deletes' : undefined,
    deletes,
  );
  return same(ctx.cwds);
}

/** `rm -rf /`, the workspace itself, and `--no-preserve-root` are refused whatever the policy allows. */
function refuseRootRemoval(analysis: Analysis, parsed: ParsedArgs): void {
  const recursive =
    hasFlag(parsed, '-r', '-R') || [...parsed.flags].some((f) => f.length > 4 && '--recursive'.startsWith(f));
  const noPreserve = [...parsed.flags].some((f) => f.length > 6 && '--no-preserve-root'.startsWith(f));
  const homes = [analysis.options.workspace, analysis.options.containerWorkspace];
  const dangerous = parsed.operands.some((arg) => {
    if (arg.dynamic) return false;
    const normal = path.posix.normalize(arg.text).replace(/(.)\/+$/, '$1');
    return /^\/+(\.\/*)?\*?$/.test(normal) || homes.includes(normal);
  });
  if (noPreserve || (recursive && dangerous)) {
    refuse(
      'it would delete the whole filesystem or your home/workspace folder itself (rm -rf / and its variants are never run). Delete specific files or folders inside your workspace instead.',
    );
  }
}

/** Compilers, `sort -o`, `mktemp`, `wget`, `curl`…: outputs named by option are written, other operands read. */
export async function analyseOutputOptions(
  analysis: Analysis,
  base: string,
  output: (typeof OUTPUT_OPTIONS)[string],
  rest: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const parsed = parseArgs(rest, output);
  await analysis.paths.writeArgs(valuesOf(parsed, ...output.writes), ctx);
  if (base === 'wget') await analyseWget(analysis, parsed, ctx);
  if (base === 'curl') await analyseCurl(analysis, parsed, ctx);
  if (base === 'mktemp') {
    await analysis.paths.writeArgs(
      parsed.operands.filter((a) => a.dynamic || a.text.includes('/')),
      ctx,
    );
  }
  await analysis.paths.readArgs(parsed.operands, ctx);
  return same(ctx.cwds);
}

/** `chmod`/`chown`/`chgrp`: the files (after the mode or owner) are changed, so checked for writing. */
export async function analyseChmod(
  analysis: Analysis,
  base: string,
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const isMode = (t: string): boolean =>
    /^[0-7]{1,4}$/.test(t) ||
    /^[ugoa]*([-+=]([rwxXst]*|[ugo]))+(,[ugoa]*([-+=]([rwxXst]*|[ugo]))+)*$/.test(t);
  const known = new Set([
    '-R',
    '-c',
    '-f',
    '-v',
    '-h',
    '-H',
    '-L',
    '-P',
    '--recursive',
    '--verbose',
    '--changes',
    '--silent',
    '--quiet',
    '--no-dereference',
    '--dereference',
    '--preserve-root',
    '--no-preserve-root',
  ]);
  let recursive = false;
  let reference = false;
  let owner = false;
  const files: Arg[] = [];
  for (const arg of args) {
    const t = arg.text;
    if (!arg.dynamic && (known.has(t) || /^-[RcfvhHLP]+$/.test(t))) {
      if (t.includes('R') || t === '--recursive') recursive = true;
      if (t === '--no-preserve-root') refuse('--no-preserve-root is never used here.');
      continue;
    }
    if (!arg.dynamic && t.startsWith('--reference=')) {
      reference = true;
      await analysis.paths.checkArg(sliceArg(arg, 12), 'read', ctx);
      continue;
    }
    if (!arg.dynamic && t.startsWith('--from=')) continue;
    if (!owner && !reference && (arg.dynamic || base !== 'chmod' || isMode(t))) {
      owner = true;
      continue;
    }
    files.push(arg);
  }
  if (recursive && files.some((f) => !f.dynamic && path.posix.normalize(f.text) === '/')) {
    refuse(
      `it changes permissions or owners of the whole filesystem (${base} -R /), which is never allowed here.`,
    );
  }
  await analysis.paths.writeArgs(files, ctx, 'changes');
  return same(ctx.cwds);
}

/** `dd if=… of=…`: the input is read, the output written; devices other than harmless ones are refused. */
export async function analyseDd(analysis: Analysis, rest: Arg[], ctx: Ctx): Promise<Outcome> {
  for (const arg of rest) {
    if (arg.dynamic) {
      await analysis.paths.readArg(arg, ctx);
      continue;
    }
    if (arg.text.startsWith('of=')) {
      const target = sliceArg(arg, 3);
      if (/^\/dev\//.test(target.text) && !WRITE_DEVICES.test(target.text)) {
        refuse(`dd writes to the device ${target.text}, which is never allowed here.`);
      }
      await analysis.paths.checkArg(target, 'write', ctx);
    } else if (arg.text.startsWith('if=')) {
      await analysis.paths.checkArg(sliceArg(arg, 3), 'read', ctx);
    }
  }
  return same(ctx.cwds);
}

/** `uniq input output`: the second operand is written. */
export async function analyseUniq(analysis: Analysis, rest: Arg[], ctx: Ctx): Promise<Outcome> {
  const parsed = parseArgs(rest, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] });
  const [input, output] = parsed.operands;
  if (input) await analysis.paths.readArg(input, ctx);
  if (output) await analysis.paths.checkArg(output, 'write', ctx);
  return same(ctx.cwds);
}

/** `split`/`csplit`: pieces are written next to the prefix; `--filter` is shell code. */
export async function analyseSplit(
  analysis: Analysis,
  base: string,
  rest: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const parsed = parseArgs(rest, {
    short: 'abClnteEfk',
    long: [
      'filter',
      'prefix',
      'additional-suffix',
      'suffix-length',
      'bytes',
      'lines',
      'number',
      'line-bytes',
      'separator',
    ],
  });
  for (const filter of valuesOf(parsed, '--filter'))
    await runCommandText(analysis, filter, ctx, 'the split filter');
  const prefixes = base === 'csplit' ? valuesOf(parsed, '-f', '--prefix') : parsed.operands.slice(1, 2);
  await analysis.paths.writeArgs(prefixes.length > 0 ? prefixes : [literalArg('x')], ctx);
  if (parsed.operands[0]) await analysis.paths.readArg(parsed.operands[0], ctx);
  return same(ctx.cwds);
}
