import stringWidth from 'string-width';

/*
 * Text laid out in a fixed-width font — the live view, the plain and interactive views, the
 * coordination table — is measured in terminal columns, not UTF-16 code units: a CJK character or an
 * emoji takes two columns, a combining mark none. And it is only ever cut between grapheme clusters
 * (what a reader sees as one character: an emoji ZWJ family, a flag, a letter with its accents).
 *
 * Widths come from `string-width`, the measure Ink lays its boxes out with, so a line fitted here is
 * never re-cut by Ink; cuts come from `Intl.Segmenter`. Text is plain text: escape sequences are
 * neither interpreted nor rewritten (a view makes untrusted text inert first — util/terminal-text —
 * and measures it after). `cli-truncate` and `wrap-ansi` are not used: they lay out *styled* text, so
 * on plain text they rewrite escape sequences (`cli-truncate('\x1b[2Jabcdefgh', 4)` drops the
 * sequence, an SGR one gets a made-up `\x1b[39m`), cli-truncate 5.2 ends a column too wide when a
 * double-width character straddles the cut, and wrap-ansi 9 hard-wraps by code point, splitting flags
 * and ZWJ sequences.
 */

/** Made on first use: building a segmenter costs ~14 ms, and ASCII text never needs one. */
let graphemes: Intl.Segmenter | undefined;

/**
 * One column per code unit, each its own cluster: printable ASCII, and the Latin letters, punctuation
 * (`—`, `…`), arrows and box drawing the views print themselves. Text made only of these is measured
 * without `string-width`, whose first call compiles its emoji pattern (about 6 MiB of a plain run's
 * peak memory). text.test.ts checks every one of these against `string-width`.
 */
export const NARROW =
  /^[\x20-\x7E\u00A0-\u00AC\u00AE-\u024F\u2010-\u2027\u2030-\u205E\u2190-\u21FF\u2500-\u25FC]*$/;

/*
 * V8's grapheme segmenter (Node 20) takes time quadratic in the length of the string it segments —
 * about a second for 40 000 characters — and `string-width` segments the whole string it is given.
 * So long text is segmented in pieces of about `PIECE` code units, cut where a cluster cannot go on
 * (checked from the two code points either side); within a piece, the segmenter decides.
 */
const PIECE = 256;
/** A code point a cluster may continue with: marks, format characters (ZWJ, tags), regional
 * indicators, emoji modifiers, Hangul vowel and trailing jamo. */
const CONTINUES = /[\p{M}\p{Cf}\p{Regional_Indicator}\p{Emoji_Modifier}\u1160-\u11FF\uD7B0-\uD7FF]/u;
/** A code point a cluster may go on after: marks (an Indic virama joins the next consonant), format
 * characters (ZWJ), Hangul leading jamo, CR (of CRLF), Prepend characters. (A regional indicator
 * only pairs with another, which {@link CONTINUES} has.) */
const JOINS =
  /[\p{M}\p{Cf}\u1100-\u115F\uA960-\uA97F\r\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u0D4E\u{110BD}\u{110CD}\u{111C2}\u{111C3}\u{1193F}\u{11941}\u{11A3A}\u{11A84}-\u{11A89}\u{11D46}\u{11F02}]/u;

/** Whether code unit `index` of `text` starts a grapheme cluster for certain. */
function certainBoundary(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return true;
  const next = text.codePointAt(index) ?? 0;
  if (next >= 0xdc00 && next <= 0xdfff) return false; // the second half of a surrogate pair
  const low = text.charCodeAt(index - 1);
  const previous = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? text.codePointAt(index - 2) : low;
  return !CONTINUES.test(String.fromCodePoint(next)) && !JOINS.test(String.fromCodePoint(previous ?? 0));
}

/** `text` in pieces of about {@link PIECE} code units, each cut between grapheme clusters. */
function* pieces(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > PIECE) {
    let cut = start + PIECE;
    while (cut > start && !certainBoundary(text, cut)) cut--;
    if (cut === start) {
      // No certain boundary in a whole piece (a run of marks or flags): the next one, however far.
      cut = start + PIECE;
      while (cut < text.length && !certainBoundary(text, cut)) cut++;
    }
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/** The grapheme clusters of `text` and where each starts. */
function* clustersOf(text: string): Generator<{ segment: string; index: number }> {
  let offset = 0;
  for (const piece of pieces(text)) {
    graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (const { segment, index } of graphemes.segment(piece)) yield { segment, index: offset + index };
    offset += piece.length;
  }
}

/** Terminal columns `text` takes (plain text: an escape sequence counts as the characters it holds). */
export function textWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  let width = 0;
  for (const piece of pieces(text)) width += stringWidth(piece, { countAnsiEscapeCodes: true });
  return width;
}

/**
 * Where the longest start of `text` that fits `columns` ends (a code-unit index between two grapheme
 * clusters), or null when the whole text fits. Reads only as much of `text` as that takes.
 */
function fittingEnd(text: string, columns: number): number | null {
  // Printable ASCII up to the cut: one column each, and an ASCII character always starts a cluster.
  if (NARROW.test(text.slice(0, columns + 1))) return text.length <= columns ? null : Math.max(0, columns);
  let width = 0;
  for (const { segment, index } of clustersOf(text)) {
    width += textWidth(segment);
    if (width > columns) return index;
  }
  return null;
}

/** The longest start of `text` that fits `columns`, cut between grapheme clusters. */
export function fitStart(text: string, columns: number): string {
  const end = fittingEnd(text, Math.max(0, Math.floor(columns)));
  return end === null ? text : text.slice(0, end);
}

/**
 * Shortens text to at most `max` columns, marking the cut with `…` (so at least one column), never
 * inside a character.
 */
export function truncate(text: string, max: number): string {
  const columns = Math.floor(max);
  if (fittingEnd(text, columns) === null) return text;
  return `${fitStart(text, columns - 1)}…`;
}

/** `text` then spaces, to `width` columns (text already wider is left as it is). */
export function padEndTo(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - textWidth(text)));
}

/** Spaces then `text`, to `width` columns (text already wider is left as it is). */
export function padStartTo(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - textWidth(text))) + text;
}

/** A table cell: `text` cut (with `…`) or padded to exactly `width` columns. */
export function cell(text: string, width: number): string {
  return padEndTo(truncate(text, width), width);
}

/**
 * Splits a word into pieces between grapheme clusters: the first of at most `first` columns (what is
 * left of the current line; it may be empty), the others of at most `width`. A character wider than
 * a whole line (a CJK character in one column) gets a piece to itself.
 */
function splitWord(word: string, width: number, first: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  let room = first;
  for (const { segment } of clustersOf(word)) {
    const w = textWidth(segment);
    if (used + w > room && !(piece === '' && room === width)) {
      pieces.push(piece);
      piece = '';
      used = 0;
      room = width;
    }
    piece += segment;
    used += w;
  }
  pieces.push(piece);
  return pieces;
}

/**
 * Wraps one paragraph (no newlines) to `width` columns at whitespace, like a terminal would: a word
 * that fits a line but not the rest of this one moves to the next; a word wider than a line (a URL,
 * a run of CJK text, which has no spaces) is split between characters, starting on this line when
 * that saves a line. The
 * paragraph's indentation (up to half the width) indents every line it wraps to; whitespace at the
 * end of a line is dropped.
 */
function wrapParagraph(paragraph: string, width: number): string[] {
  const text = paragraph.replace(/\t/g, '  ').trimEnd();
  if (textWidth(text) <= width) return [text];
  const indent = /^\s*/.exec(text)?.[0] ?? '';
  const margin = textWidth(indent) <= width / 2 ? indent : '';
  const room = width - textWidth(margin);
  const lines: string[] = [];
  let line = '';
  let used = 0;
  let space = '';
  const flush = (): void => {
    lines.push(margin + line);
    line = '';
    used = 0;
  };
  for (const token of text.slice(indent.length).split(/(\s+)/)) {
    if (token === '') continue;
    if (/^\s/.test(token)) {
      space = token;
      continue;
    }
    const w = textWidth(token);
    const gap = line === '' ? 0 : textWidth(space);
    if (used + gap + w <= room) {
      line += (line === '' ? '' : space) + token;
      used += gap + w;
    } else if (w <= room) {
      flush();
      line = token;
      used = w;
    } else {
      // Started on this line only when that saves a line (as wrap-ansi's hard wrap does).
      const left = line === '' ? room : Math.max(0, room - used - gap);
      const here = left === room || 1 + Math.floor((w - left - 1) / room) <= Math.floor((w - 1) / room);
      const [head = '', ...rest] = splitWord(token, room, here ? left : 0);
      if (head !== '') line += (line === '' ? '' : space) + head;
      for (const piece of rest) {
        if (line !== '') flush();
        line = piece;
      }
      used = textWidth(line);
    }
    space = '';
  }
  if (line !== '' || lines.length === 0) flush();
  return lines;
}

/**
 * Wraps text to `width` columns (at least 1): each line of the text wraps on its own, empty lines
 * stay. Never cuts inside a character. See {@link wrapParagraph}.
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, Math.floor(width));
  return text.split(/\r?\n/).flatMap((p) => wrapParagraph(p, w));
}

/**
 * `text` from a grapheme-cluster boundary at or a little after code unit `start` (the first one that
 * is certain without segmenting the text before it): a tail of a long text that does not begin with
 * half a character.
 */
export function tailFrom(text: string, start: number): string {
  let index = Math.max(0, start);
  while (index < text.length && !certainBoundary(text, index)) index++;
  return text.slice(index);
}

/** Collapses whitespace into single spaces (for one-line previews). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export { COST_UNKNOWN, formatAgentsCost, formatCostOf, formatUsd, type CostPart } from './cost-text.js';
