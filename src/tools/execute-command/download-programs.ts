/**
 * The extra file use of `wget` and `curl` beyond their output options: default download folders,
 * input and upload files, and options that read more options from files (refused).
 */
import { type Analysis, type Ctx, refuse } from './analysis-context.js';
import { hasFlag, type ParsedArgs, valuesOf } from './parse-args.js';
import { literalArg } from './shell-words.js';

/** `wget`: without `-O`/`-P` it downloads into the current folder; `-e` runs wgetrc commands. */
export async function analyseWget(analysis: Analysis, parsed: ParsedArgs, ctx: Ctx): Promise<void> {
  if (parsed.values.has('-e') || parsed.values.has('--execute')) {
    refuse('wget -e runs wgetrc commands, which cannot be checked. Use ordinary options.');
  }
  for (const file of valuesOf(parsed, '-i', '--input-file')) await analysis.paths.checkArg(file, 'read', ctx);
  const named = valuesOf(parsed, '-O', '--output-document', '-P', '--directory-prefix').length > 0;
  if (!named) await analysis.paths.checkArg(literalArg('.'), 'write', ctx, 'downloads into');
}

/** `curl`: `-O` downloads here, uploads and certificates are read, `@file` data is read. */
export async function analyseCurl(analysis: Analysis, parsed: ParsedArgs, ctx: Ctx): Promise<void> {
  if (parsed.values.has('-K') || parsed.values.has('--config')) {
    refuse('curl -K/--config reads options from a file, which cannot be checked. Give the options directly.');
  }
  if (
    hasFlag(parsed, '-O', '--remote-name', '--remote-name-all', '-J') &&
    valuesOf(parsed, '--output-dir').length === 0
  ) {
    await analysis.paths.checkArg(literalArg('.'), 'write', ctx, 'downloads into');
  }
  for (const file of valuesOf(
    parsed,
    '-T',
    '--upload-file',
    '-E',
    '--cert',
    '--key',
    '--cacert',
    '--capath',
  )) {
    await analysis.paths.checkArg(file, 'read', ctx);
  }
  for (const data of valuesOf(
    parsed,
    '-d',
    '--data',
    '--data-binary',
    '--data-urlencode',
    '--data-ascii',
    '-F',
    '--form',
    '--json',
  )) {
    if (data.dynamic) continue;
    const at = /(?:^|=)[@<](.+)$/.exec(data.text);
    if (at) await analysis.paths.checkArg(literalArg(at[1]!, data.raw), 'read', ctx);
  }
}
