/**
 * Redirections of a command: files it reads (`<`) or writes (`>`, `>>`, `&>`…) are checked, and what
 * its standard input will be is worked out, because a shell reading its script from standard input
 * (`bash <<EOF`, `bash < file`) runs code the analysis must see.
 */
import type { Analysis, Ctx, Stdin } from './analysis-context.js';
import type { Redirect } from './shell-ast.js';

/** Checks the redirections and returns the standard input they leave the command with. */
export async function applyRedirects(analysis: Analysis, redirects: Redirect[], ctx: Ctx): Promise<Stdin> {
  let stdin: Stdin = ctx.f.stdinPipe ? { kind: 'pipe' } : { kind: 'none' };
  for (const redirect of redirects) {
    const toStdin = redirect.fd === null || redirect.fd === '0';
    switch (redirect.op) {
      case '<<':
      case '<<-': {
        const heredoc = redirect.heredoc!;
        const chars = await analysis.chars(heredoc.parts, ctx);
        const known = chars.every((ch) => 'c' in ch);
        if (toStdin) stdin = { kind: 'text', text: known ? heredoc.text : null };
        break;
      }
      case '<<<': {
        const args = await analysis.expand(redirect.target, ctx);
        const arg = args[0];
        if (toStdin)
          stdin = { kind: 'text', text: args.length === 1 && arg && !arg.dynamic ? `${arg.text}\n` : null };
        break;
      }
      case '<':
        for (const arg of await analysis.expand(redirect.target, ctx)) {
          await analysis.paths.checkArg(arg, 'read', ctx);
          if (toStdin) stdin = { kind: 'file', arg };
        }
        break;
      case '<&':
      case '>&': {
        for (const arg of await analysis.expand(redirect.target, ctx)) {
          if (!arg.dynamic && /^(\d+-?|-)$/.test(arg.text)) continue;
          if (arg.dynamic && arg.known === '') {
            // `>&$fd`: a file descriptor number held in a variable.
            continue;
          }
          await analysis.paths.checkArg(arg, redirect.op === '<&' ? 'read' : 'write', ctx);
        }
        break;
      }
      default:
        for (const arg of await analysis.expand(redirect.target, ctx)) {
          await analysis.paths.checkArg(arg, redirect.op === '<' ? 'read' : 'write', ctx);
        }
    }
  }
  return stdin;
}
