/**
 * Untrusted text (a model's answer, a tool result, an MCP server's message, a file) made inert before a
 * view writes it to a terminal: every character a terminal would act on instead of print is shown
 * escaped, so an answer can neither set the window title, clear the screen, forge coloured text,
 * plant a hyperlink, write the clipboard, move the cursor nor reorder what the user reads.
 *
 * - ESC becomes `␛`, followed by the rest of its sequence as ordinary text: `\x1b[2J` shows as `␛[2J`,
 *   an OSC title `\x1b]0;x\x07` as `␛]0;x␇`. Every CSI, OSC, DCS, APC, PM and SOS sequence starts with
 *   ESC, so none of them can run.
 * - The other C0 controls (U+0000–U+001F) and DEL become their Control Pictures (U+2400–U+241F, U+2421):
 *   BEL `␇`, backspace `␈`, and a carriage return `␍` — a lone CR would let a line overwrite itself.
 *   Newline and tab stay; CRLF becomes a plain newline (the CR of a line end is harmless but would show).
 * - C1 controls (U+0080–U+009F, among them the 8-bit CSI U+009B and OSC U+009D), Unicode format
 *   characters (category Cf: bidirectional embeddings, overrides and isolates U+202A–U+202E and
 *   U+2066–U+2069, marks U+200E/U+200F/U+061C, zero-width space, word joiner, BOM, soft hyphen, tag
 *   characters…) and the line/paragraph separators U+2028/U+2029 become `\u202E`-style escapes
 *   (`\u{E0041}` above U+FFFF).
 * - Kept, because text needs them and they cannot disguise it: ZWJ and ZWNJ (emoji sequences, Indic
 *   and Persian shaping) and emoji tag sequences (the flags of England, Scotland, Wales).
 *
 * Apply it to the untrusted text *before* a view adds its own styling (never to styled output), and
 * only for the terminal: logs and files keep the text as data. It is stateless per character, so a
 * stream may be made inert chunk by chunk (a CRLF split across two chunks shows as `␍` and a newline).
 * The function is idempotent.
 *
 * Why not a package: `strip-ansi` and friends delete escape sequences (and only ANSI ones), which hides
 * what the model sent; the views must show it, escaped, and must also defuse C1, lone CR and bidi
 * controls. A few lines of regular expression do that.
 */
import { mapPlainTree } from './map-plain-tree.js';

/** What {@link inertText} rewrites; a tag sequence (group 1) matches first and is kept. */
const UNSAFE = /(\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F})|\r\n|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** Whether a text needs {@link UNSAFE} at all (newline, tab, ZWJ and ZWNJ alone do not). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NEEDS_WORK = /[\0-\x08\x0B-\x1F\x7F-\x9F\u2028\u2029]|(?![\u200C\u200D])\p{Cf}/u;

const KEPT = new Set(['\n', '\t', '\u200C', '\u200D']);

function shown(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * `text` with every terminal control shown escaped instead of acted on (see the module comment):
 * `inertText('\x1b]0;PWNED\x07hi')` → `'␛]0;PWNED␇hi'`. Ordinary text (any script, emoji, newlines,
 * tabs) comes back unchanged — the very same string when nothing needed escaping.
 */
export function inertText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(UNSAFE, (match: string, tagSequence: string | undefined) => {
    if (tagSequence !== undefined) return tagSequence;
    if (match === '\r\n') return '\n';
    return KEPT.has(match) ? match : shown(match);
  });
}

/** A writer that makes everything it is given inert (for views that add no styling of their own). */
export function inertWriter(write: (text: string) => void): (text: string) => void {
  return (text) => write(inertText(text));
}

/**
 * `value` with {@link inertText} applied to every string, and every key, inside plain objects and
 * arrays — e.g. a run event before a styled view reduces it. Properties named in `keep` are left as
 * they are (ids the view hands back to the run, such as a tool call's `callId`, must still match).
 * Returns the very same value when nothing needed escaping, so clean events cost no copy.
 */
export function inertValue<T>(value: T, keep: ReadonlySet<string> = new Set()): T {
  return mapPlainTree(value, inertText, (node, visit) => {
    let changed = false;
    const next = Object.entries(node).map(([key, item]): [string, unknown] => {
      const nextKey = inertText(key);
      const nextItem = keep.has(key) ? item : visit(item);
      if (nextKey !== key || nextItem !== item) changed = true;
      return [nextKey, nextItem];
    });
    return changed ? Object.fromEntries(next) : node;
  }) as T;
}

/** What a terminal could act on that `JSON.stringify` leaves as it is (it escapes only C0 and `"`/`\`). */
const JSON_ACTIVE = /[\x7F-\x9F\p{Cf}\u2028\u2029]/gu;

/**
 * `value` as JSON (as `JSON.stringify(value, null, space)`) that a terminal shows instead of acting on:
 * besides the C0 controls JSON escapes itself, DEL, C1 controls (the 8-bit CSI U+009B), format
 * characters (bidi overrides, tag characters) and U+2028/U+2029 become `\uXXXX` escapes. Unlike
 * {@link inertText} this loses nothing: the output is still valid JSON and parses back to `value`.
 * For command output that quotes foreign text as JSON (`--json`, JSON Lines exports).
 */
export function inertJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space) ?? 'null';
  return json.replace(JSON_ACTIVE, (char) =>
    Array.from({ length: char.length }, (_, i) => char.charCodeAt(i))
      .map((unit) => `\\u${unit.toString(16).toUpperCase().padStart(4, '0')}`)
      .join(''),
  );
}
