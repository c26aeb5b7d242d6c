/**
 * Programs that copy, move or link files from sources to a destination (`cp`, `mv`, `ln`,
 * `install`, `rsync`). A symlink's target and a file landing inside an existing folder are checked
 * as well, since either can reach a path the operands do not name.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type Analysis, type Ctx, type Outcome, quote, refuse, same } from './analysis-context.js';
import { runCommandText } from './nested-shells.js';
import { type ArgSpec, hasFlag, parseArgs, valuesOf } from './parse-args.js';
import { type Arg, literalArg } from './shell-words.js';

/** `cp`, `mv`, `ln`, `install`: the destination is written; moved and linked sources too, copied ones read. */
export async function analyseTransfer(
  analysis: Analysis,
  base: string,
  spec: ArgSpec,
  args: Arg[],
  ctx: Ctx,
): Promise<Outcome> {
  const parsed = parseArgs(args, spec);
  const target = valuesOf(parsed, '-t', '--target-directory');
  const operands = parsed.operands;
  let destinations: Arg[];
  let sources: Arg[];
  if (target.length > 0) {
    destinations = target;
    sources = operands;
  } else if (base === 'install' && hasFlag(parsed, '-d', '--directory')) {
    destinations = operands;
    sources = [];
  } else if (operands.length >= 2) {
    destinations = [operands[operands.length - 1]!];
    sources = operands.slice(0, -1);
  } else if (base === 'ln' && operands.length === 1) {
    destinations = [literalArg('.')];
    sources = operands;
  } else {
    destinations = [];
    sources = operands;
  }
  const links = base === 'cp' && hasFlag(parsed, '-l', '-s', '--link', '--symbolic-link');
  const sourcesWritten = base === 'mv' || base === 'ln' || links;
  const folders = await analysis.paths.writeArgs(destinations, ctx);
  for (const source of sources) {
    const verb = sourcesWritten ? (base === 'mv' ? 'moves' : 'links to') : undefined;
    await analysis.paths.checkArg(source, sourcesWritten ? 'write' : 'read', ctx, verb, base === 'mv');
  }
  // A symlink's target is relative to the folder the link is in, not to the current folder.
  if (base === 'ln' || links) {
    for (const source of sources) {
      if (source.dynamic || source.text.startsWith('/')) continue;
      for (const destination of destinations) {
        if (destination.dynamic) continue;
        // The link is the destination itself, or a file inside it when it is a folder: check both.
        const folders =
          target.length > 0 ? [destination.text] : [path.posix.dirname(destination.text), destination.text];
        for (const folder of folders) {
          await analysis.paths.checkArg(
            literalArg(`${folder}/${source.text}`, source.raw),
            'write',
            ctx,
            'links to',
          );
        }
      }
    }
  }
  // Copying into an existing folder writes a file of the source's name there (which may be protected).
  for (const folder of folders) {
    let isFolder = false;
    try {
      isFolder = (await stat(folder)).isDirectory();
    } catch {
      // Not there yet: the destination itself was checked.
    }
    if (!isFolder) continue;
    for (const source of sources) {
      if (source.dynamic) continue;
      const name = path.posix.basename(source.text.replace(/\/+$/, ''));
      if (name === '' || name === '.' || name === '..') continue;
      const decision = await analysis.paths.decide(`${folder}/${name}`, 'write');
      if (!decision.allowed) refuse(`it writes ${quote(`${folder}/${name}`)}. ${decision.reason}`);
    }
  }
  return same(ctx.cwds);
}

/** `rsync`: local destination written, local sources read (written with --remove-source-files); `-e` is a command. */
export async function analyseRsync(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  const parsed = parseArgs(args, {
    short: 'eBfTM',
    long: [
      'rsh',
      'rsync-path',
      'filter',
      'exclude',
      'include',
      'exclude-from',
      'include-from',
      'files-from',
      'temp-dir',
      'backup-dir',
      'partial-dir',
      'compare-dest',
      'copy-dest',
      'link-dest',
      'log-file',
      'password-file',
      'chmod',
      'chown',
      'suffix',
      'timeout',
      'port',
      'max-size',
      'min-size',
      'bwlimit',
      'out-format',
    ],
  });
  for (const rsh of valuesOf(parsed, '-e', '--rsh')) await runCommandText(analysis, rsh, ctx, 'rsync -e');
  await analysis.paths.writeArgs(
    valuesOf(parsed, '-T', '--temp-dir', '--backup-dir', '--partial-dir', '--log-file'),
    ctx,
  );
  for (const file of valuesOf(
    parsed,
    '--exclude-from',
    '--include-from',
    '--files-from',
    '--link-dest',
    '--compare-dest',
    '--copy-dest',
  )) {
    await analysis.paths.checkArg(file, 'read', ctx);
  }
  const remote = (a: Arg): boolean => !a.dynamic && /^[^/]*:/.test(a.text) && !a.text.startsWith('./');
  const operands = parsed.operands;
  if (operands.length >= 2) {
    const destination = operands[operands.length - 1]!;
    if (!remote(destination)) await analysis.paths.checkArg(destination, 'write', ctx);
  }
  const sourcesWritten = hasFlag(parsed, '--remove-source-files', '--remove-sent-files');
  for (const source of operands.length >= 2 ? operands.slice(0, -1) : operands) {
    if (!remote(source)) await analysis.paths.checkArg(source, sourcesWritten ? 'write' : 'read', ctx);
  }
  return same(ctx.cwds);
}
