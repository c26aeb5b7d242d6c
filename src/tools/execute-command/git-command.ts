/**
 * `git`: the repository is read or written depending on the subcommand, and every way of making
 * git run a configured command (`-c`, `config`, `clone --template`…) or look elsewhere is refused.
 */
import { type Analysis, type Ctx, type Outcome, refuse, same } from './analysis-context.js';
import { GIT_COMMAND_CONFIG, READ_ONLY_GIT } from './git-rules.js';
import { parseArgs } from './parse-args.js';
import { changeDirectory } from './shell-builtins.js';
import { type Arg, literalArg } from './shell-words.js';

/** `git [-C dir] [-c key=value] subcommand…`: read-only subcommands read, the others write the repository. */
export async function analyseGit(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  let cwds = ctx.cwds;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    const t = arg.text;
    if (arg.dynamic || !t.startsWith('-')) break;
    if (t === '-C') {
      const dir = args[++i];
      if (dir) cwds = (await changeDirectory(analysis, 'cd', [dir], { ...ctx, cwds })).ok;
    } else if (t === '-c') {
      const setting = args[++i];
      if (setting && (setting.dynamic || GIT_COMMAND_CONFIG.test(setting.text.split('=')[0] ?? ''))) {
        refuse(`git -c ${setting.raw} configures a command for git to run, which cannot be checked.`);
      }
    } else if (/^--(git-dir|work-tree|exec-path|namespace|super-prefix|config-env)(=|$)/.test(t)) {
      refuse(
        `git ${t.split('=')[0]} points git elsewhere, which is not allowed. Run git inside your workspace (cd there, or git -C <folder>).`,
      );
    }
  }
  const sub = args[i];
  if (!sub) return same(ctx.cwds);
  if (sub.dynamic) {
    if (ctx.f.strict) refuse('the git subcommand is only known when the command runs.');
    return same(ctx.cwds);
  }
  const here: Ctx = { ...ctx, cwds };
  const rest = args.slice(i + 1);
  if (sub.text === 'config') {
    const key = rest.find((a) => !a.text.startsWith('-'));
    if (key && (key.dynamic || GIT_COMMAND_CONFIG.test(key.text)) && rest.length > 1) {
      refuse(`it sets the git setting ${key.raw}, a command git would run later, which cannot be checked.`);
    }
  }
  if (sub.text === 'clone') {
    const operands = parseArgs(rest, {
      short: 'bjoc',
      long: [
        'branch',
        'depth',
        'origin',
        'config',
        'reference',
        'separate-git-dir',
        'template',
        'upload-pack',
        'jobs',
        'filter',
      ],
    });
    if (
      operands.values.has('-c') ||
      operands.values.has('--config') ||
      operands.values.has('--upload-pack') ||
      operands.values.has('-u') ||
      operands.values.has('--template')
    ) {
      refuse(
        'git clone with -c, --template or --upload-pack configures commands for git to run, which cannot be checked.',
      );
    }
    const [repository, directory] = operands.operands;
    if (repository && !repository.dynamic && !/^[\w+.-]+:\/\/|^[^/]+:/.test(repository.text))
      await analysis.paths.readArg(repository, here);
    await analysis.paths.writeArgs(directory ? [directory] : [literalArg('.')], here, 'clones into');
    return same(ctx.cwds);
  }
  if (!READ_ONLY_GIT.has(sub.text))
    await analysis.paths.writeArgs([literalArg('.')], here, 'changes the repository in');
  await analysis.paths.readArgs(rest, here);
  return same(ctx.cwds);
}
