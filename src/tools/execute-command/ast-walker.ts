/**
 * Walking the parsed command the way bash would run it: lists, and-or chains, pipelines, compound
 * commands and simple commands. Along the way it tracks the folders each part may run in (so `cd`
 * is followed) and which variables are certainly set.
 */
import {
  type Analysis,
  type Ctx,
  type Cwds,
  type Frame,
  MAX_GLOB_MATCHES,
  MAX_LOOP_PASSES,
  type Outcome,
  refuse,
  same,
  SAFE,
  type Shell,
  unique,
  UNKNOWN,
  type Value,
} from './analysis-context.js';
import { applyRedirects } from './redirections.js';
import type { AndOr, Command, List, Pipeline } from './shell-ast.js';
import { assign, forkShell } from './shell-state.js';
import { type Arg, matchGlob } from './shell-words.js';
import { analyseAssignment } from './variable-assignments.js';

/** A command list; the folders it may leave the shell in are those its last item may leave. */
export async function walkList(analysis: Analysis, list: List, ctx: Ctx): Promise<Outcome> {
  let cwds = ctx.cwds;
  let last = same(cwds);
  for (const item of list.items) {
    if (item.background) {
      await walkAndOr(analysis, item.andOr, {
        cwds,
        sh: forkShell(ctx.sh),
        f: { ...ctx.f, definite: false },
      });
      last = same(cwds);
    } else {
      last = await walkAndOr(analysis, item.andOr, { ...ctx, cwds });
      cwds = unique(last.ok, last.fail);
    }
  }
  return last;
}

async function walkAndOr(analysis: Analysis, andOr: AndOr, ctx: Ctx): Promise<Outcome> {
  let out = await walkPipeline(analysis, andOr.first, ctx);
  const later: Frame = { ...ctx.f, definite: false };
  for (const { op, pipeline } of andOr.rest) {
    if (op === '&&') {
      const next = await walkPipeline(analysis, pipeline, { ...ctx, cwds: out.ok, f: later });
      out = { ok: next.ok, fail: unique(out.fail, next.fail) };
    } else {
      const next = await walkPipeline(analysis, pipeline, { ...ctx, cwds: out.fail, f: later });
      out = { ok: unique(out.ok, next.ok), fail: next.fail };
    }
  }
  return out;
}

async function walkPipeline(analysis: Analysis, pipeline: Pipeline, ctx: Ctx): Promise<Outcome> {
  if (pipeline.commands.length === 1) {
    const out = await walkCommand(analysis, pipeline.commands[0]!, ctx);
    return pipeline.negated ? { ok: out.fail, fail: out.ok } : out;
  }
  for (const [index, command] of pipeline.commands.entries()) {
    await walkCommand(analysis, command, {
      cwds: ctx.cwds,
      sh: forkShell(ctx.sh),
      f: { ...ctx.f, definite: false, stdinPipe: index > 0 || ctx.f.stdinPipe },
    });
  }
  return same(ctx.cwds);
}

/** One command of any kind; branches and loops may run or not, so what they set is not definite. */
export async function walkCommand(analysis: Analysis, command: Command, ctx: Ctx): Promise<Outcome> {
  analysis.tick();
  const loose: Ctx = { ...ctx, f: { ...ctx.f, definite: false } };
  switch (command.type) {
    case 'simple':
      return walkSimple(analysis, command, ctx);
    case 'subshell':
      await applyRedirects(analysis, command.redirects, ctx);
      await walkList(analysis, command.body, { ...ctx, sh: forkShell(ctx.sh) });
      return same(ctx.cwds);
    case 'group':
      await applyRedirects(analysis, command.redirects, ctx);
      return walkList(analysis, command.body, ctx);
    case 'if': {
      await applyRedirects(analysis, command.redirects, ctx);
      let input = ctx.cwds;
      let all: Cwds = [];
      for (const branch of command.branches) {
        const cond = await walkList(analysis, branch.cond, { ...loose, cwds: input });
        const body = await walkList(analysis, branch.body, { ...loose, cwds: cond.ok });
        all = unique(all, body.ok, body.fail);
        input = cond.fail;
      }
      if (command.otherwise) {
        const other = await walkList(analysis, command.otherwise, { ...loose, cwds: input });
        all = unique(all, other.ok, other.fail);
      } else {
        all = unique(all, input);
      }
      return same(all);
    }
    case 'while':
      await applyRedirects(analysis, command.redirects, ctx);
      return loop(loose, async (cwds) => {
        const cond = await walkList(analysis, command.cond, { ...loose, cwds });
        const body = await walkList(analysis, command.body, {
          ...loose,
          cwds: command.until ? cond.fail : cond.ok,
        });
        return unique(cond.ok, cond.fail, body.ok, body.fail);
      });
    case 'for': {
      await applyRedirects(analysis, command.redirects, ctx);
      if (command.arith) {
        analysis.arithmetic = true;
        await analysis.chars(command.arith, ctx);
      }
      let values: Value = null;
      if (command.items) {
        const args: Arg[] = [];
        for (const word of command.items) args.push(...(await analysis.expand(word, ctx)));
        for (const arg of args) await analysis.paths.readArg(arg, ctx);
        values = await loopValues(args, ctx);
      }
      // Inside the body the variable certainly holds one of the values.
      if (command.variable !== null) {
        const definite = command.items !== null && command.items.length > 0;
        assign({ ...ctx, f: { ...ctx.f, definite } }, command.variable, values);
      }
      return loop(loose, async (cwds) => {
        const body = await walkList(analysis, command.body, { ...loose, cwds });
        return unique(cwds, body.ok, body.fail);
      });
    }
    case 'case': {
      await applyRedirects(analysis, command.redirects, ctx);
      await analysis.expand(command.subject, ctx);
      let all = ctx.cwds;
      for (const arm of command.arms) {
        for (const pattern of arm.patterns) await analysis.expand(pattern, ctx);
        const body = await walkList(analysis, arm.body, loose);
        all = unique(all, body.ok, body.fail);
      }
      return same(all);
    }
    case 'function':
      if (command.name === 'command_not_found_handle') {
        refuse(
          'it defines command_not_found_handle, which bash runs for unknown commands; name the function differently.',
        );
      }
      ctx.sh.functions.set(command.name, command.body);
      analysis.functionsDefined.set(command.name, { body: command.body, strict: ctx.f.strict });
      return same(ctx.cwds);
    case 'arith':
      analysis.arithmetic = true;
      await applyRedirects(analysis, command.redirects, ctx);
      await analysis.chars(command.parts, ctx);
      return same(ctx.cwds);
    case 'test': {
      analysis.arithmetic = true;
      await applyRedirects(analysis, command.redirects, ctx);
      let previous = '';
      for (const word of command.words) {
        const args = await analysis.expand(word, ctx);
        // The right side of ==, != and =~ is a pattern, not a file.
        if (!['==', '!=', '=~', '=', '<', '>'].includes(previous))
          for (const arg of args) await analysis.paths.readArg(arg, ctx);
        previous = word.raw;
      }
      return same(ctx.cwds);
    }
  }
}

/** Runs a loop body until the folders and variables it can leave stop changing. */
async function loop(ctx: Ctx, pass: (cwds: Cwds) => Promise<Cwds>): Promise<Outcome> {
  let cwds = ctx.cwds;
  for (let i = 0; ; i++) {
    const before = stateKey(cwds, ctx.sh);
    cwds = unique(cwds, await pass(cwds));
    if (stateKey(cwds, ctx.sh) === before) return same(cwds);
    if (i >= MAX_LOOP_PASSES) {
      if (!ctx.f.strict) return same([...cwds, UNKNOWN]);
      return refuse(
        'it changes directory inside a loop in a way that cannot be followed. Use paths relative to your workspace, or a subshell per folder: (cd dir && …).',
      );
    }
  }
}

function stateKey(cwds: Cwds, sh: Shell): string {
  const vars = [...sh.vars.entries()]
    .map(
      ([k, v]) => `${k}=${v === null ? '?' : v === SAFE ? '#' : typeof v === 'string' ? v : v.any.join('|')}`,
    )
    .sort();
  return `${[...cwds].sort().join('\0')}\n${vars.join('\0')}`;
}

/** The values a `for` variable takes, when they are all known (globs matched now). */
async function loopValues(args: Arg[], ctx: Ctx): Promise<Value> {
  const values = new Set<string>();
  for (const arg of args) {
    if (arg.dynamic) return null;
    if (!arg.glob) {
      values.add(arg.text);
      continue;
    }
    for (const cwd of ctx.cwds) {
      if (cwd === UNKNOWN) return null;
      const matches = await matchGlob(arg, cwd, MAX_GLOB_MATCHES);
      if (matches === null) return null;
      if (matches.length === 0) values.add(arg.text);
      for (const match of matches) {
        values.add(arg.text.startsWith('/') ? match : match.slice(cwd.length + 1));
      }
    }
    if (values.size > 256) return null;
  }
  return values.size === 1 ? [...values][0]! : { any: [...values] };
}

async function walkSimple(
  analysis: Analysis,
  command: Extract<Command, { type: 'simple' }>,
  ctx: Ctx,
): Promise<Outcome> {
  const args: Arg[] = [];
  for (const word of command.words) args.push(...(await analysis.expand(word, ctx)));
  for (const assignment of command.assigns) {
    await analyseAssignment(analysis, assignment, ctx, command.words.length > 0);
  }
  const stdin = await applyRedirects(analysis, command.redirects, ctx);
  if (args.length === 0) return same(ctx.cwds);
  return analysis.invoke(args, ctx, { stdin, functions: true });
}
