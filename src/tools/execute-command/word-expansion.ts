/**
 * Word expansion as far as it can be known before running: variables with known values, tilde,
 * braces, and the output of trivial substitutions (`$(pwd)`). Every `$(…)`, backtick and `<(…)` met
 * on the way is analysed as a command of its own; what stays unknown is marked dynamic.
 */
import path from 'node:path';
import { type Analysis, type Ctx, SAFE } from './analysis-context.js';
import type { List, Word, WordPart } from './shell-ast.js';
import { assign, forkShell, lookup, pwd } from './shell-state.js';
import { type Arg, braceExpand, type Ch, expandAlternatives, expandTilde, toArg } from './shell-words.js';

/** A word as the arguments it becomes (alternatives and braces can make several). */
export async function expandWord(analysis: Analysis, word: Word, ctx: Ctx): Promise<Arg[]> {
  const chars = await expandParts(analysis, word.parts, ctx);
  const out: Arg[] = [];
  for (const variant of expandAlternatives(chars)) {
    for (const braced of braceExpand(variant)) {
      out.push(toArg(expandTilde(braced, analysis.home, pwd(ctx)), word.raw));
    }
  }
  return out;
}

/** The characters of word parts; analyses every command substitution on the way. */
export async function expandParts(analysis: Analysis, parts: readonly WordPart[], ctx: Ctx): Promise<Ch[]> {
  const out: Ch[] = [];
  for (const part of parts) {
    switch (part.kind) {
      case 'text':
        for (const c of part.text) out.push({ c, q: part.quoted });
        break;
      case 'param':
        out.push(...(await param(analysis, part, ctx)));
        break;
      case 'command': {
        await substitution(analysis, part.body, ctx);
        const output = staticOutput(part.body, ctx);
        if (output === null || (!part.quoted && /[\s*?[\]]/.test(output))) out.push({ dyn: 'unsafe' });
        else for (const c of output) out.push({ c, q: true });
        break;
      }
      case 'arith':
        analysis.arithmetic = true;
        await expandParts(analysis, part.nested, ctx);
        out.push({ dyn: 'safe' });
        break;
      case 'process':
        await substitution(analysis, part.body, ctx);
        for (const c of '/dev/fd/63') out.push({ c, q: true });
        break;
    }
  }
  return out;
}

async function param(
  analysis: Analysis,
  part: Extract<WordPart, { kind: 'param' }>,
  ctx: Ctx,
): Promise<Ch[]> {
  if (part.op !== null) {
    const nested = await expandParts(analysis, part.nested, ctx);
    // `${x:=default}` assigns.
    if (/^\|:?=/.test(part.op)) assign({ ...ctx, f: { ...ctx.f, definite: false } }, part.name, null);
    if (part.op.startsWith('#|')) return [{ dyn: 'safe' }];
    const hint = nested.map((ch) => ('c' in ch ? ch.c : '')).join('');
    return [{ dyn: 'unsafe', hint }];
  }
  const value = lookup(part.name, ctx);
  if (value === SAFE) return [{ dyn: 'safe' }];
  if (value === null) return [{ dyn: 'unsafe' }];
  const values = typeof value === 'string' ? [value] : value.any;
  const splits = (v: string): boolean => ctx.sh.ifsChanged || /[\s*?[\]]/.test(v);
  if (!part.quoted && values.some(splits)) return [{ dyn: 'unsafe' }];
  if (typeof value === 'string') return [...value].map((c) => ({ c, q: true }));
  return [{ alt: values }];
}

/** Analyses `$(…)`/backticks/`<(…)`: a subshell starting where the command is. */
async function substitution(analysis: Analysis, body: List, ctx: Ctx): Promise<void> {
  await analysis.list(body, {
    cwds: ctx.cwds,
    sh: forkShell(ctx.sh),
    f: { ...ctx.f, definite: false, stdinPipe: false },
  });
}

/** The output of simple substitutions whose result is known: `$(pwd)`, `$(echo x)`, `$(dirname x)`. */
function staticOutput(body: List, ctx: Ctx): string | null {
  const item = body.items.length === 1 ? body.items[0] : undefined;
  if (!item || item.background || item.andOr.rest.length > 0 || item.andOr.first.commands.length !== 1)
    return null;
  const command = item.andOr.first.commands[0]!;
  if (command.type !== 'simple' || command.assigns.length > 0 || command.redirects.length > 0) return null;
  const words: string[] = [];
  for (const word of command.words) {
    if (!word.parts.every((p) => p.kind === 'text' && (p.quoted || !/[\s*?[\]{}~]/.test(p.text))))
      return null;
    words.push(word.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''));
  }
  const [name, ...rest] = words;
  if (name === 'pwd' && rest.length === 0) return pwd(ctx);
  if (name === 'echo' && !rest.some((w) => w.startsWith('-'))) return rest.join(' ');
  if (name === 'dirname' && rest.length === 1) return path.posix.dirname(rest[0]!);
  if (name === 'basename' && rest.length === 1) return path.posix.basename(rest[0]!);
  if (name === 'mktemp' && rest.every((w) => /^-[dqu]+$/.test(w))) {
    // A new name in TMPDIR (inside the workspace); the random part has no `/`.
    const folder = ctx.sh.vars.get('TMPDIR');
    return typeof folder === 'string' ? `${folder}/tmp.0000000000` : null;
  }
  return null;
}
