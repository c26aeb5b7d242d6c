/**
 * Words after expansion, as far as they can be known before the command runs: brace expansion, `~`,
 * variables whose values are known, and glob patterns matched against the disk.
 */
import { readdir } from 'node:fs/promises';

/**
 * One character of an expanded word. `q`: it came from quotes or a variable's value, so it does not
 * glob or brace-expand. `dyn`: a piece only known at run time — `safe` when it cannot hold a `/` or a
 * `..` (a number such as `$$` or `$((…))`), `unsafe` otherwise (with the known text around it in
 * `hint`). `alt`: one of several known values (a `for` variable).
 */
export type Ch = { c: string; q: boolean } | { dyn: 'safe' | 'unsafe'; hint?: string } | { alt: string[] };

/** An expanded argument. */
export interface Arg {
  /** The word as written in the command, for messages. */
  raw: string;
  /** Its value; `safe` unknown pieces read as `0`. Meaningless when `dynamic`. */
  text: string;
  /** The characters known for sure (for a `dynamic` word: to see whether it builds a path). */
  known: string;
  /** Holds a piece only known at run time that may contain `/` or `..`. */
  dynamic: boolean;
  /** Has unquoted `*`, `?` or `[…]`. */
  glob: boolean;
  chars: Ch[];
}

/** More words than this from one word (braces, `for` values) and the word counts as unknown. */
const MAX_VARIANTS = 256;

const isUnquoted = (ch: Ch | undefined, c: string): boolean =>
  ch !== undefined && 'c' in ch && !ch.q && ch.c === c;

/** Expands the `alt` pieces: one variant per combination. */
export function expandAlternatives(chars: Ch[]): Ch[][] {
  const index = chars.findIndex((ch) => 'alt' in ch);
  if (index === -1) return [chars];
  const alt = chars[index] as { alt: string[] };
  const out: Ch[][] = [];
  for (const value of alt.alt) {
    const replaced = [
      ...chars.slice(0, index),
      ...[...value].map((c) => ({ c, q: true })),
      ...chars.slice(index + 1),
    ];
    for (const variant of expandAlternatives(replaced)) {
      out.push(variant);
      if (out.length > MAX_VARIANTS) return [[{ dyn: 'unsafe' }]];
    }
  }
  return out;
}

function sequence(inner: Ch[]): string[] | null {
  if (inner.some((ch) => !('c' in ch) || ch.q)) return null;
  const text = inner.map((ch) => (ch as { c: string }).c).join('');
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  if (numeric) {
    const from = Number(numeric[1]);
    const to = Number(numeric[2]);
    const step = Math.abs(Number(numeric[3] ?? 1)) || 1;
    const width =
      /^-?0\d/.test(numeric[1]!) || /^-?0\d/.test(numeric[2]!)
        ? Math.max(numeric[1]!.length, numeric[2]!.length)
        : 0;
    const pad = (n: number): string => {
      if (width === 0) return String(n);
      const digits = String(Math.abs(n)).padStart(n < 0 ? width - 1 : width, '0');
      return n < 0 ? `-${digits}` : digits;
    };
    const out: string[] = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step) {
      out.push(pad(n));
      if (out.length > MAX_VARIANTS) return null;
    }
    return out;
  }
  const alpha = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  if (alpha) {
    const from = alpha[1]!.charCodeAt(0);
    const to = alpha[2]!.charCodeAt(0);
    const step = Math.abs(Number(alpha[3] ?? 1)) || 1;
    const out: string[] = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step)
      out.push(String.fromCharCode(n));
    return out;
  }
  return null;
}

/** Bash brace expansion (`a{b,c}`, `{1..3}`) on unquoted braces. */
export function braceExpand(chars: Ch[]): Ch[][] {
  for (let i = 0; i < chars.length; i++) {
    if (!isUnquoted(chars[i], '{')) continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = i; j < chars.length; j++) {
      if (isUnquoted(chars[j], '{')) depth++;
      else if (isUnquoted(chars[j], '}')) {
        depth--;
        if (depth === 0) {
          close = j;
          break;
        }
      } else if (depth === 1 && isUnquoted(chars[j], ',')) commas.push(j);
    }
    if (close === -1) continue;
    let alternatives: Ch[][];
    if (commas.length > 0) {
      const bounds = [i, ...commas, close];
      alternatives = bounds.slice(0, -1).map((start, k) => chars.slice(start + 1, bounds[k + 1]));
    } else {
      const values = sequence(chars.slice(i + 1, close));
      if (values === null) continue;
      alternatives = values.map((v) => [...v].map((c) => ({ c, q: true })));
    }
    const out: Ch[][] = [];
    for (const alternative of alternatives) {
      for (const variant of braceExpand([...chars.slice(0, i), ...alternative, ...chars.slice(close + 1)])) {
        out.push(variant);
        if (out.length > MAX_VARIANTS) return [[{ dyn: 'unsafe' }]];
      }
    }
    return out;
  }
  return [chars];
}

/**
 * `~`, `~/x`, `~+` at the start of a word. `home` is the command's HOME; `pwd` the current folder when
 * it is known. Other users' homes (`~user`) and `~-` are unknown.
 */
export function expandTilde(chars: Ch[], home: string, pwd: string | null): Ch[] {
  if (!isUnquoted(chars[0], '~')) return chars;
  let end = 1;
  let user = '';
  while (end < chars.length) {
    const ch = chars[end]!;
    if ('c' in ch && ch.c === '/') break;
    if (!('c' in ch) || ch.q) return chars;
    user += ch.c;
    end++;
  }
  const value = user === '' ? home : user === '+' ? pwd : null;
  const replacement: Ch[] =
    value === null ? [{ dyn: 'unsafe', hint: '~' }] : [...value].map((c) => ({ c, q: true }));
  return [...replacement, ...chars.slice(end)];
}

/** Builds the {@link Arg} of expanded characters. */
export function toArg(chars: Ch[], raw: string): Arg {
  let text = '';
  let known = '';
  let dynamic = false;
  let glob = false;
  let openBracket = false;
  for (const ch of chars) {
    if ('dyn' in ch) {
      if (ch.dyn === 'unsafe') {
        dynamic = true;
        known += ch.hint ?? '';
      } else {
        text += '0';
        known += '0';
      }
      continue;
    }
    if ('alt' in ch) {
      dynamic = true;
      continue;
    }
    text += ch.c;
    known += ch.c;
    if (!ch.q) {
      if (ch.c === '*' || ch.c === '?') glob = true;
      if (ch.c === '[') openBracket = true;
      if (ch.c === ']' && openBracket) glob = true;
    }
  }
  return { raw, text, known, dynamic, glob, chars };
}

/** The argument from character `start` of a static argument on (e.g. the value of `--opt=value`). */
export function sliceArg(arg: Arg, start: number): Arg {
  return toArg(arg.chars.slice(start), arg.raw);
}

/** A literal argument (for values made up by the analysis, such as `.`). */
export function literalArg(text: string, raw = text): Arg {
  return toArg(
    [...text].map((c) => ({ c, q: true })),
    raw,
  );
}

/** Whether text looks like a path: absolute, `~`, `.`/`..`, or containing `/`. */
export function looksLikePath(text: string): boolean {
  return text.startsWith('/') || text.startsWith('~') || text === '.' || text === '..' || text.includes('/');
}

/** Whether text looks like program code or a message rather than a file name (not checked when only read). */
export function looksLikeCode(text: string): boolean {
  return /[\n(){};'"<>|&`$]/.test(text);
}

/** A regular expression for one path component of a glob pattern. */
function componentPattern(chars: Ch[]): RegExp {
  let source = '';
  const escape = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (!('c' in ch)) {
      source += '.*';
      continue;
    }
    if (ch.q) {
      source += escape(ch.c);
    } else if (ch.c === '*') {
      source += '.*';
    } else if (ch.c === '?') {
      source += '.';
    } else if (ch.c === '[') {
      let j = i + 1;
      if (isUnquoted(chars[j], '!') || isUnquoted(chars[j], '^')) j++;
      if (isUnquoted(chars[j], ']')) j++;
      while (j < chars.length && !isUnquoted(chars[j], ']')) j++;
      if (j >= chars.length) {
        source += '\\[';
        continue;
      }
      let body = '';
      let k = i + 1;
      if (isUnquoted(chars[k], '!') || isUnquoted(chars[k], '^')) {
        body += '^';
        k++;
      }
      for (; k < j; k++) {
        const inner = chars[k]!;
        const c = 'c' in inner ? inner.c : '';
        body += c === '\\' || c === ']' || c === '[' || (c === '^' && body === '') ? `\\${c}` : c;
      }
      source += `[${body}]`;
      i = j;
    } else {
      source += escape(ch.c);
    }
  }
  return new RegExp(`^${source}$`, 's');
}

const hasGlob = (chars: Ch[]): boolean =>
  chars.some((ch) => 'c' in ch && !ch.q && (ch.c === '*' || ch.c === '?' || ch.c === '['));

/**
 * The absolute paths a glob matches now, relative names resolved from `cwd`. Null when there are
 * more than `limit`; `[]` when nothing matches (the shell then passes the pattern itself).
 */
export async function matchGlob(arg: Arg, cwd: string, limit: number): Promise<string[] | null> {
  const components: Ch[][] = [[]];
  for (const ch of arg.chars) {
    if ('c' in ch && ch.c === '/') components.push([]);
    else components[components.length - 1]!.push(ch);
  }
  const absolute = arg.text.startsWith('/');
  let prefixes = [absolute ? '' : cwd];
  for (const [index, component] of components.entries()) {
    if (component.length === 0) {
      if (index === components.length - 1 && index > 0) prefixes = prefixes.map((p) => `${p}/`);
      continue;
    }
    if (!hasGlob(component)) {
      const name = component.map((ch) => ('c' in ch ? ch.c : '0')).join('');
      prefixes = prefixes.map((p) => `${p}/${name}`);
      continue;
    }
    const pattern = componentPattern(component);
    const first = component[0]!;
    const dotAllowed = 'c' in first && first.c === '.';
    const next: string[] = [];
    for (const prefix of prefixes) {
      let names: string[];
      try {
        names = await readdir(prefix === '' ? '/' : prefix);
      } catch {
        continue;
      }
      if (dotAllowed) names.push('.', '..');
      for (const name of names) {
        if (name.startsWith('.') && !dotAllowed) continue;
        if (!pattern.test(name)) continue;
        next.push(`${prefix}/${name}`);
        if (next.length > limit) return null;
      }
    }
    prefixes = next;
    if (prefixes.length === 0) return [];
  }
  return prefixes;
}
