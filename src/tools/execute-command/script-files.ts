/**
 * Shell scripts on disk, run by `bash file`, `source file` or `./file`: read and analysed leniently
 * (they were not written for this check), except that a script the same command writes is refused,
 * since what it will contain cannot be read beforehand.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  type Analysis,
  type Ctx,
  type Frame,
  MAX_DEPTH,
  MAX_SCRIPT_BYTES,
  type Outcome,
  quote,
  refuse,
  same,
} from './analysis-context.js';
import { SHELLS } from './code-runner-rules.js';
import { READ_DEVICES } from './path-rules.js';
import { type List, parseShell, ShellSyntaxError } from './shell-parser.js';
import { childShell } from './shell-state.js';
import type { Arg } from './shell-words.js';

/** A shell script on disk, run by `bash file`, `source file` or `./file`. Analysed leniently. */
export async function runScriptFile(
  analysis: Analysis,
  real: string,
  shown: string,
  ctx: Ctx,
  how: { sameShell: boolean; ifShell: boolean },
): Promise<Outcome> {
  if (real === '/dev/null') return same(ctx.cwds);
  if (READ_DEVICES.test(real) || /^\/proc\//.test(real)) {
    if (!ctx.f.strict) return same(ctx.cwds);
    refuse(
      `it runs a script from ${quote(shown)} (standard input or a pipe), which cannot be checked. Run the commands directly.`,
    );
  }
  if (analysis.paths.written.has(real)) {
    refuse(
      `it runs the script ${quote(shown)}, which the same command writes, so the script cannot be checked first. Write the script in one call and run it in the next.`,
    );
  }
  let text: string;
  try {
    const info = await stat(real);
    if (!info.isFile()) return same(ctx.cwds);
    if (info.size > MAX_SCRIPT_BYTES) {
      if (how.ifShell) return same(ctx.cwds);
      refuse(`the script ${quote(shown)} is too large to check (over ${MAX_SCRIPT_BYTES / 1024} KB).`);
    }
    text = await readFile(real, 'utf8');
  } catch {
    return same(ctx.cwds);
  }
  if (text.includes('\0')) return same(ctx.cwds);
  if (how.ifShell) {
    const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
    const program = shebang ? path.posix.basename(shebang[1]!) : 'sh';
    const interpreter = program === 'env' ? (shebang?.[2] ?? '') : program;
    if (!SHELLS.has(interpreter)) return same(ctx.cwds);
  }
  if (ctx.f.depth >= MAX_DEPTH) refuse(`the script ${quote(shown)} runs scripts nested too deeply to check.`);
  let list: List;
  try {
    list = parseShell(text);
  } catch (error) {
    if (error instanceof ShellSyntaxError) {
      refuse(
        `the script ${quote(shown)} could not be checked because it could not be parsed (${error.message}).`,
      );
    }
    throw error;
  }
  const f: Frame = {
    ...ctx.f,
    strict: false,
    depth: ctx.f.depth + 1,
    definite: how.sameShell && ctx.f.definite,
  };
  const sh = how.sameShell ? ctx.sh : childShell(analysis.options, ctx.sh);
  const out = await analysis.list(list, { cwds: ctx.cwds, sh, f });
  return how.sameShell ? out : same(ctx.cwds);
}

/** `source file args…` / `. file`: the script runs in this shell, so its `cd` and variables carry over. */
export async function analyseSource(analysis: Analysis, rest: Arg[], ctx: Ctx): Promise<Outcome> {
  const [file, ...params] = rest;
  if (!file) return same(ctx.cwds);
  const saved = ctx.sh.positional;
  if (params.length > 0) ctx.sh.positional = params.map((p) => (p.dynamic ? null : p.text));
  let out = same(ctx.cwds);
  for (const real of await analysis.paths.checkArg(file, 'read', ctx, 'runs the script')) {
    out = await runScriptFile(analysis, real, file.raw, ctx, { sameShell: true, ifShell: false });
  }
  ctx.sh.positional = saved;
  return out;
}
