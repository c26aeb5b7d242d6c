import type { UiKey } from './ui-state.js';

/**
 * Every key counts, however the terminal's bytes arrive. Ink's input parser splits a stdin read only
 * at escape sequences, so keys that arrive in one read — a busy machine, a slow SSH link, a fast typist,
 * `tmux send-keys "text" Enter` — reach `useInput` as one string (`"hello\r"`, `"ma"`) with no key flag
 * set. {@link KeyDecoder} turns such a chunk back into the keys it holds, and tells a paste (bracketed
 * paste mode: the terminal wraps it in `ESC[200~` … `ESC[201~`) from typing, so pasted text is taken as
 * text and never as commands.
 */

/** Turns on bracketed paste mode (the terminal marks pasted text); {@link PASTE_MODE_OFF} undoes it. */
export const PASTE_MODE_ON = '\u001b[?2004h';
export const PASTE_MODE_OFF = '\u001b[?2004l';

/**
 * The paste markers as Ink hands them over: Ink parses `ESC[200~` as a function key it has no name
 * for and passes its sequence without the ESC.
 */
const PASTE_START = '[200~';
const PASTE_END = '[201~';

/** The flags of Ink's `Key` that a key press uses (Ink's own type, without the dependency). */
export type InkKey = Omit<UiKey, 'input'> & { meta?: boolean };

/** What one `useInput` call came to: keys pressed, or text pasted. */
export type KeyInput = { kind: 'key'; key: UiKey } | { kind: 'paste'; text: string };

/** Whether Ink recognised the input as one named key (an arrow, Enter, Esc, …) or a Ctrl/Meta chord. */
function isNamedKey(key: InkKey): boolean {
  return Boolean(
    key.ctrl ||
    key.meta ||
    key.escape ||
    key.return ||
    key.backspace ||
    key.delete ||
    key.tab ||
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.home ||
    key.end,
  );
}

/** One character of a plain chunk as the key it stands for, with the flags Ink would have set. */
export function keyOfChar(char: string): UiKey {
  if (char === '\r' || char === '\n') return { input: '', return: true };
  if (char === '\t') return { input: '', tab: true };
  if (char === '\b') return { input: '', backspace: true };
  if (char === '\u007f') return { input: '', delete: true };
  const code = char.codePointAt(0) ?? 0;
  // Ctrl+letter arrives as 0x01..0x1a; Ink names it by its letter.
  if (code >= 1 && code <= 26) return { input: String.fromCharCode(code + 96), ctrl: true };
  return { input: char };
}

/** Splits a plain chunk into its keys (code points; a CRLF is one Enter). */
export function keysOfChunk(input: string): UiKey[] {
  return Array.from(input.replace(/\r\n/g, '\r'), keyOfChar);
}

/**
 * Decodes `useInput` calls into keys and pastes. Stateful only for a paste in progress: a long paste
 * arrives in several reads between its markers.
 */
export class KeyDecoder {
  private pasted: string[] | null = null;

  /** Whether a paste has started and not ended yet. */
  get pasting(): boolean {
    return this.pasted !== null;
  }

  decode(input: string, key: InkKey): KeyInput[] {
    if (input === PASTE_START && !isNamedKey(key)) {
      this.pasted = [];
      return [];
    }
    if (this.pasted !== null) {
      if (input === PASTE_END && !isNamedKey(key)) {
        const text = this.pasted.join('');
        this.pasted = null;
        return text === '' ? [] : [{ kind: 'paste', text }];
      }
      // Inside a paste every byte is text, Enter included: it is never a key.
      this.pasted.push(key.return ? '\r' : key.tab ? '\t' : input);
      return [];
    }
    if (input.length > 1 && !isNamedKey(key)) {
      return keysOfChunk(input).map((k) => ({ kind: 'key', key: k }));
    }
    return [{ kind: 'key', key: { ...key, input } }];
  }
}
