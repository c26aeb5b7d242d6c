import { KEYSYM_NAMES } from './keysym-names.js';
import { isXdotoolCommand } from './xdotool.js';

/** One checked key combination: how results show it, and the one xdotool argument that presses it. */
export interface KeyChord {
  label: string;
  arg: string;
}

/** xdotool's own modifier names, which it maps to `Alt_L`, `Control_L`, … (case-insensitively). */
const MODIFIERS = new Set(['alt', 'ctrl', 'control', 'meta', 'super', 'shift']);

/** Names models often use for keys whose X keysym is spelled differently. */
const ALIASES: Readonly<Record<string, string>> = {
  enter: 'Return',
  esc: 'Escape',
  backspace: 'BackSpace',
  pageup: 'Page_Up',
  pagedown: 'Page_Down',
  cmd: 'super',
  win: 'super',
};

/**
 * Keysym names that are also xdotool command words (`Help`): xdotool would run the command rather
 * than press the key, so they go as their keysym value, which XStringToKeysym reads as well. A test
 * checks this against keysymdef.h and the command list.
 */
export const COMMAND_WORD_KEYSYMS: Readonly<Record<string, string>> = { Help: '0xff6a' };

/** Keysym names by their lower-case spelling, for `return` or `TAB`. */
const BY_LOWER_CASE = new Map<string, string[]>();
for (const name of KEYSYM_NAMES) {
  const lower = name.toLowerCase();
  BY_LOWER_CASE.set(lower, [...(BY_LOWER_CASE.get(lower) ?? []), name]);
}

/** At most this many combinations in one call. */
const MAX_CHORDS = 100;

const USAGE =
  'use X keysym names (Return, Tab, Escape, F5, Page_Down, a) or single characters, with modifiers (ctrl, alt, shift, super) joined by +, several separated by spaces, e.g. "ctrl+s Return"';

/** One key of a combination: what to show and what xdotool gets, or a hint why not ('' if none). */
function resolveKey(key: string): KeyChord | { why: string } {
  const lower = key.toLowerCase();
  if (MODIFIERS.has(lower)) return { label: lower, arg: lower };
  const alias = ALIASES[lower];
  if (alias !== undefined) return { label: alias, arg: alias };
  const candidates = KEYSYM_NAMES.has(key) ? [key] : (BY_LOWER_CASE.get(lower) ?? []);
  if (candidates.length === 1) {
    const name = candidates[0]!;
    if (!isXdotoolCommand(name)) return { label: name, arg: name };
    const value = COMMAND_WORD_KEYSYMS[name];
    return value === undefined ? { why: ' xdotool can press' } : { label: name, arg: value };
  }
  if (candidates.length > 1) return { why: ` (did you mean ${candidates.join(' or ')}?)` };
  // A single printable character: by its name where it has one (a, 5), else as XStringToKeysym's
  // Unicode form (U002F for /), which has no characters xdotool treats specially.
  if ([...key].length === 1 && /^[^\p{C}\s]$/u.test(key))
    return { label: key, arg: `U${key.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` };
  return { why: '' };
}

/** A combination's keys: `ctrl+s` → ctrl, s; `+` and `ctrl++` press the + key. */
function splitChord(chord: string): string[] {
  if (chord === '+') return ['+'];
  if (chord.endsWith('++')) return [...chord.slice(0, -2).split('+'), '+'];
  return chord.split('+');
}

/**
 * Checks key combinations as a model writes them (`"ctrl+s Return"`) against X's keysym names: each
 * key a keysym name, one of xdotool's modifiers, a common alias (`Enter`, `Esc`) or a single
 * printable character. Returns one chord per combination, or a line naming the key that is not one.
 */
export function parseKeys(text: string): KeyChord[] | string {
  const combos = text.trim().split(/\s+/).filter(Boolean);
  if (combos.length === 0) return `no keys given: ${USAGE}`;
  if (combos.length > MAX_CHORDS) return `at most ${MAX_CHORDS} key combinations at a time`;
  const chords: KeyChord[] = [];
  for (const combo of combos) {
    const keys = splitChord(combo);
    if (keys.some((key) => key === ''))
      return `"${combo}" has an empty key between the + signs (the + key itself is "plus"): ${USAGE}`;
    const resolved: KeyChord[] = [];
    for (const key of keys) {
      const one = resolveKey(key);
      if ('why' in one)
        return `"${key}"${keys.length > 1 ? ` in "${combo}"` : ''} is not a key${one.why}: ${USAGE}`;
      resolved.push(one);
    }
    chords.push({
      label: resolved.map((key) => key.label).join('+'),
      arg: resolved.map((key) => key.arg).join('+'),
    });
  }
  return chords;
}
