/**
 * Builtins that change the shell itself rather than files: the current folder (`cd`, `pushd`), code
 * kept for later (`trap`, `alias`), positional parameters (`set`), and options that would let
 * unchecked code run (`shopt`, `hash -p`, `enable`).
 */
import {
  type Analysis,
  type Ctx,
  MAX_GLOB_MATCHES,
  type Outcome,
  quote,
  refuse,
  same,
  unique,
  UNKNOWN,
} from './analysis-context.js';
import { parseArgs } from './parse-args.js';
import { joinRelative } from './path-checker.js';
import { type Arg, matchGlob } from './shell-words.js';

/**
 * `cd`/`pushd` (and `env -C`, `git -C`): the folders the shell may be in afterwards, each checked for
 * reading. A folder only known at run time is refused, because every later relative path depends on it.
 */
export async function changeDirectory(
  analysis: Analysis,
  base: string,
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const dashes = args.findIndex((a) => !a.dynamic && a.text === '--');
  const operands = [
    ...args
      .slice(0, dashes === -1 ? args.length : dashes)
      .filter((a) => a.dynamic || !/^-[LPe@]+$/.test(a.text)),
    ...(dashes === -1 ? [] : args.slice(dashes + 1)),
  ];
  const target = operands[0];
  if (!target) {
    if (base === 'pushd') return { ok: [...analysis.allCwds], fail: ctx.cwds };
    return { ok: [analysis.options.workspace], fail: ctx.cwds };
  }
  if (!target.dynamic && (target.text === '-' || (base === 'pushd' && /^[+-]\d+$/.test(target.text)))) {
    return { ok: [...analysis.allCwds], fail: ctx.cwds };
  }
  if (target.dynamic) {
    if (!ctx.f.strict) return { ok: [UNKNOWN], fail: ctx.cwds };
    refuse(
      `it changes directory to ${quote(target.raw)}, which is only known when the command runs. Use a literal path inside your workspace.`,
    );
  }
  const ok: string[] = [];
  for (const cwd of ctx.cwds) {
    if (cwd === UNKNOWN && !target.text.startsWith('/')) {
      ok.push(UNKNOWN);
      continue;
    }
    const texts =
      target.glob && cwd !== UNKNOWN ? ((await matchGlob(target, cwd, MAX_GLOB_MATCHES)) ?? []) : [];
    const candidates =
      texts.length > 0 ? texts : [target.text.startsWith('/') ? target.text : joinRelative(cwd, target.text)];
    for (const candidate of candidates) {
      const decision = await analysis.paths.decide(analysis.paths.toHost(candidate), 'read');
      if (!decision.allowed) {
        refuse(
          `it changes directory to ${quote(target.raw)}. ${decision.reason} Stay in your workspace: use paths relative to it, and join commands with && so later ones only run where you meant.`,
        );
      }
      ok.push(decision.realPath);
      analysis.allCwds.add(decision.realPath);
    }
  }
  return { ok: unique(ok), fail: ctx.cwds };
}

/** `trap code signals`: the code runs later, from wherever the command then is. */
export async function analyseTrap(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  const [action, ...signals] = args;
  if (!action || signals.length === 0) return same(ctx.cwds);
  if (!action.dynamic && /^-[lp]*$/.test(action.text)) return same(ctx.cwds);
  if (action.dynamic) {
    if (ctx.f.strict)
      refuse('it sets a trap whose command is only known when the command runs, so it cannot be checked.');
    return same(ctx.cwds);
  }
  analysis.deferred.push({ text: action.text, what: 'the trap', strict: ctx.f.strict });
  return same(ctx.cwds);
}

/** `alias name=code`: the code may run later wherever the name is used. */
export function analyseAlias(analysis: Analysis, rest: Arg[], ctx: Ctx): Outcome {
  for (const arg of rest) {
    if (arg.dynamic) {
      if (ctx.f.strict) refuse(`the alias ${quote(arg.raw)} is only known when the command runs.`);
      continue;
    }
    const eq = arg.text.indexOf('=');
    if (eq > 0)
      analysis.deferred.push({
        text: arg.text.slice(eq + 1),
        what: `the alias ${arg.text.slice(0, eq)}`,
        strict: ctx.f.strict,
      });
  }
  return same(ctx.cwds);
}

/** `shopt`: options that would let unchecked code or folders in are refused. */
export function analyseShopt(rest: Arg[], ctx: Ctx): Outcome {
  if (rest.some((a) => a.dynamic || a.text === 'expand_aliases')) {
    refuse(
      'it turns on alias expansion, which would let aliases run commands that were not checked. Call the commands directly.',
    );
  }
  if (rest.some((a) => a.text === 'cdable_vars')) {
    refuse('"shopt -s cdable_vars" lets cd go to folders named by variables, which cannot be followed.');
  }
  return same(ctx.cwds);
}

/** `hash -p path name` would make a name run a program the analysis never saw. */
export function analyseHash(rest: Arg[], ctx: Ctx): Outcome {
  if (rest.some((a) => !a.dynamic && /^-\w*p/.test(a.text))) {
    refuse(
      '"hash -p" makes a command name run a different program, which cannot be checked. Call the program by its path instead.',
    );
  }
  return same(ctx.cwds);
}

/** `enable` could swap builtins for loaded code; only listing is allowed. */
export function analyseEnable(rest: Arg[], ctx: Ctx): Outcome {
  if (rest.some((a) => a.dynamic || !/^-[aps]+$/.test(a.text))) {
    refuse('"enable" changes which builtins the shell uses (or loads new ones), which cannot be followed.');
  }
  return same(ctx.cwds);
}

/** `set -- args`: new positional parameters. */
export function analyseSet(rest: Arg[], ctx: Ctx): Outcome {
  const parsed = parseArgs(rest, { short: 'o' });
  if (rest.some((a) => a.text === '--') || parsed.operands.length > 0) {
    ctx.sh.positional = parsed.operands.map((a) => (a.dynamic ? null : a.text));
  }
  return same(ctx.cwds);
}
