import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_WORD_KEYSYMS, parseKeys, type KeyChord } from './keys.js';
import { KEYSYM_NAMES } from './keysym-names.js';
import { isXdotoolCommand, XDOTOOL_COMMANDS, xdotoolArgv } from './xdotool.js';

const HEADER = '/usr/include/X11/keysymdef.h';
const hasHeader = existsSync(HEADER);

const chords = (text: string) => parseKeys(text) as KeyChord[];
/** Every spelling xdotool would take for a command word (it compares case-insensitively). */
const spellings = (word: string) => [word, word.toUpperCase(), word[0]!.toUpperCase() + word.slice(1)];

describe('key names', () => {
  it('takes keysym names, modifiers, common aliases and single characters, one xdotool argument per combination', () => {
    expect(chords('ctrl+s Return alt+F4')).toEqual([
      { label: 'ctrl+s', arg: 'ctrl+s' },
      { label: 'Return', arg: 'Return' },
      { label: 'alt+F4', arg: 'alt+F4' },
    ]);
    expect(chords('Enter esc CTRL+shift+TAB page_down f5').map((c) => c.arg)).toEqual([
      'Return',
      'Escape',
      'ctrl+shift+Tab',
      'Page_Down',
      'F5',
    ]);
    // Characters without a keysym of that spelling go in XStringToKeysym's Unicode form.
    expect(chords('/ ctrl+. + ctrl++ é a A 5')).toEqual([
      { label: '/', arg: 'U002F' },
      { label: 'ctrl+.', arg: 'ctrl+U002E' },
      { label: '+', arg: 'U002B' },
      { label: 'ctrl++', arg: 'ctrl+U002B' },
      { label: 'é', arg: 'U00E9' },
      { label: 'a', arg: 'a' },
      { label: 'A', arg: 'A' },
      { label: '5', arg: '5' },
    ]);
    // The Help key shares its name with xdotool's `help` command: it goes as its keysym value.
    expect(chords('Help shift+help')).toEqual([
      { label: 'Help', arg: '0xff6a' },
      { label: 'shift+Help', arg: 'shift+0xff6a' },
    ]);
  });

  it('refuses every xdotool command word — alone, after a valid key, inside a combination — naming it', () => {
    for (const word of XDOTOOL_COMMANDS.filter((w) => w !== 'help')) {
      for (const spelled of spellings(word)) {
        expect(parseKeys(spelled)).toMatch(new RegExp(`^"${spelled}" is not a key: use X keysym names`));
        expect(parseKeys(`a ${spelled} touch /tmp/pwned`)).toMatch(new RegExp(`^"${spelled}" is not a key`));
        expect(parseKeys(`ctrl+a ${spelled} sh -c >/tmp/pwned`)).toMatch(
          new RegExp(`^"${spelled}" is not a key`),
        );
        expect(parseKeys(`ctrl+${spelled}`)).toMatch(
          new RegExp(`^"${spelled}" in "ctrl\\+${spelled}" is not a key`),
        );
      }
    }
    expect(parseKeys('a exec touch x')).toMatch(/^"exec" is not a key/);
    expect(parseKeys('ctrl+s;')).toMatch(/^"s;" in "ctrl\+s;" is not a key/);
    expect(parseKeys('ctrl+')).toMatch(/^"ctrl\+" has an empty key/);
    expect(parseKeys('   ')).toMatch(/^no keys given/);
    expect(parseKeys('U002F 0xff0d 36')).toMatch(/^"U002F" is not a key/);
    expect(parseKeys('EACUTE')).toMatch(/did you mean Eacute or eacute\?/);
  });

  it('never hands xdotool a command word or a character it rejects in a key sequence', () => {
    // xdotool refuses a key sequence containing any of " \t\n.-[]{}\|" (xdo.c).
    const special = /[\s.\-[\]{}\\|]/;
    const check = (arg: string, key: string) => {
      for (const part of arg.split('+')) {
        expect(isXdotoolCommand(part), part).toBe(false);
        expect(part, key).not.toMatch(special);
      }
    };
    // Every keysym name is accepted, and none becomes a word xdotool would misread.
    for (const name of KEYSYM_NAMES) {
      const parsed = parseKeys(`shift+${name}`);
      expect(Array.isArray(parsed), `${name}: ${String(parsed)}`).toBe(true);
      check((parsed as KeyChord[])[0]!.arg, name);
    }
    for (const char of ['.', '-', '[', ']', '{', '}', '|', '\\', '€', '😀'])
      check(chords(`ctrl+${char}`)[0]!.arg, char);
  });

  it.skipIf(!hasHeader)(
    `the committed keysym list is what X11's keysymdef.h defines${hasHeader ? '' : ` (skipped: ${HEADER} not installed — Debian: x11proto-dev)`}`,
    () => {
      const header = readFileSync(HEADER, 'utf8');
      const defined = new Map(
        [...header.matchAll(/^#define XK_(\w+)\s+(0x[0-9a-fA-F]+)/gm)].map((m) => [m[1]!, m[2]!]),
      );
      expect([...KEYSYM_NAMES].sort()).toEqual([...defined.keys()].sort());
      // Every keysym that is also a command word has its value here, and it is the right one.
      const colliding = [...defined.keys()].filter(isXdotoolCommand);
      expect(Object.keys(COMMAND_WORD_KEYSYMS).sort()).toEqual(colliding.sort());
      for (const name of colliding)
        expect(Number(COMMAND_WORD_KEYSYMS[name])).toBe(Number(defined.get(name)));
    },
  );
});

describe('xdotool argument lists', () => {
  it('refuse a command word anywhere but at the head of a command', () => {
    expect(
      xdotoolArgv([
        ['mousemove', '--sync', '1', '2'],
        ['click', '1'],
      ]),
    ).toEqual(['mousemove', '--sync', '1', '2', 'click', '1']);
    expect(() => xdotoolArgv([['key', '--', 'a', 'Exec', 'touch', 'x']])).toThrow(
      /argument "Exec" is an xdotool command word/,
    );
    expect(() => xdotoolArgv([['search', '--name', '--', 'windowkill']])).toThrow(/"windowkill"/);
  });
});
