/**
 * Archivers (`tar`, `zip`, `unzip`): which side is written depends on the mode, and extraction
 * writes into a folder. Options that run commands or write to absolute paths are refused.
 */
import { type Analysis, type Ctx, type Outcome, refuse, same } from './analysis-context.js';
import { parseArgs, valuesOf } from './parse-args.js';
import { type Arg, literalArg, sliceArg } from './shell-words.js';

/** `tar`: the archive is written when creating, read otherwise; extraction writes into `-C` (or here). */
export async function analyseTar(analysis: Analysis, args: Arg[], ctx: Ctx): Promise<Outcome> {
  const letters: string[] = [];
  const files: Arg[] = [];
  const directories: Arg[] = [];
  const operands: Arg[] = [];
  const lists: Arg[] = [];
  const queue = [...args];
  const takesValue = new Set(['f', 'C', 'T', 'X', 'b', 'N', 'K', 'g', 'L', 'V', 'I', 'F', 'H']);
  const take = (letter: string, value: Arg | undefined): void => {
    if (!value) return;
    if (letter === 'f') files.push(value);
    else if (letter === 'C') directories.push(value);
    else if (letter === 'T' || letter === 'X') lists.push(value);
    else if (letter === 'I' && (value.dynamic || !/^[\w.+/-]+( -[\w=.-]+)*$/.test(value.text))) {
      refuse(
        'tar -I/--use-compress-program with a complex command cannot be checked. Name a compressor such as zstd or xz.',
      );
    } else if (letter === 'F') refuse('tar -F runs a script, which cannot be checked.');
  };
  let first = true;
  while (queue.length > 0) {
    const arg = queue.shift()!;
    const t = arg.text;
    if (arg.dynamic) {
      operands.push(arg);
      first = false;
      continue;
    }
    if (first && !t.startsWith('-') && /^[A-Za-z]+$/.test(t)) {
      // Old style: `tar xzf file.tgz`; value letters take the next words in order.
      for (const letter of t) {
        letters.push(letter);
        if (takesValue.has(letter)) take(letter, queue.shift());
      }
      first = false;
      continue;
    }
    first = false;
    if (t === '--') {
      operands.push(...queue.splice(0));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = eq === -1 ? t : t.slice(0, eq);
      const value = eq === -1 ? undefined : sliceArg(arg, eq + 1);
      const valued = (): Arg | undefined => value ?? queue.shift();
      if (
        [
          '--to-command',
          '--checkpoint-action',
          '--info-script',
          '--new-volume-script',
          '--rsh-command',
          '--rmt-command',
        ].includes(name)
      ) {
        refuse(`tar ${name} runs commands, which cannot be checked.`);
      } else if (name === '--file') take('f', valued());
      else if (name === '--directory') take('C', valued());
      else if (name === '--files-from' || name === '--exclude-from') take('T', valued());
      else if (name === '--use-compress-program') take('I', valued());
      else if (['--extract', '--get'].includes(name)) letters.push('x');
      else if (['--create', '--append', '--update', '--catenate', '--concatenate', '--delete'].includes(name))
        letters.push('c');
      else if (name === '--absolute-names') letters.push('P');
      else if (
        [
          '--exclude',
          '--transform',
          '--xform',
          '--owner',
          '--group',
          '--mode',
          '--mtime',
          '--format',
          '--strip-components',
          '--blocking-factor',
          '--record-size',
          '--label',
          '--tape-length',
          '--newer',
          '--after-date',
          '--suffix',
          '--exclude-vcs-ignores',
        ].includes(name) &&
        value === undefined
      ) {
        queue.shift();
      }
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const letter = t[j]!;
        letters.push(letter);
        if (takesValue.has(letter)) {
          take(letter, j + 1 < t.length ? sliceArg(arg, j + 1) : queue.shift());
          break;
        }
      }
      continue;
    }
    operands.push(arg);
  }
  const extract = letters.includes('x');
  const create = letters.some((l) => 'cruA'.includes(l));
  if (extract && letters.includes('P')) {
    refuse('tar -P/--absolute-names extracts files to absolute paths outside your workspace. Leave it out.');
  }
  for (const list of lists) await analysis.paths.checkArg(list, 'read', ctx);
  for (const file of files) {
    if (!file.dynamic && file.text === '-') continue;
    await analysis.paths.checkArg(file, create ? 'write' : 'read', ctx);
  }
  if (extract)
    await analysis.paths.writeArgs(
      directories.length > 0 ? directories : [literalArg('.')],
      ctx,
      'extracts into',
    );
  else for (const directory of directories) await analysis.paths.checkArg(directory, 'read', ctx);
  if (create) {
    const base = directories.length > 0 ? directories[directories.length - 1]! : null;
    for (const operand of operands) {
      if (base && !base.dynamic && !operand.dynamic && !operand.text.startsWith('/')) {
        await analysis.paths.checkArg(literalArg(`${base.text}/${operand.text}`, operand.raw), 'read', ctx);
      } else {
        await analysis.paths.checkArg(operand, 'read', ctx);
      }
    }
  }
  return same(ctx.cwds);
}

/** `unzip archive -d folder`: extraction writes into the folder (or here). */
export async function analyseUnzip(analysis: Analysis, rest: Arg[], ctx: Ctx): Promise<Outcome> {
  const parsed = parseArgs(rest, { short: 'dxP' });
  const target = valuesOf(parsed, '-d');
  await analysis.paths.writeArgs(target.length > 0 ? target : [literalArg('.')], ctx, 'extracts into');
  const [archive] = parsed.operands;
  if (archive) await analysis.paths.checkArg(archive, 'read', ctx);
  return same(ctx.cwds);
}

/** `zip archive files…`: the archive is written, the files read. */
export async function analyseZip(analysis: Analysis, rest: Arg[], ctx: Ctx): Promise<Outcome> {
  const parsed = parseArgs(rest, { short: 'btnPOZxi' });
  const [archive, ...files] = parsed.operands;
  if (archive) await analysis.paths.checkArg(archive, 'write', ctx);
  await analysis.paths.writeArgs(valuesOf(parsed, '-O', '-b'), ctx);
  await analysis.paths.readArgs(files, ctx);
  return same(ctx.cwds);
}
