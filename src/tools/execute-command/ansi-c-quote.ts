/**
 * Decoding of bash's ANSI-C quoting (`$'…'`), so a path spelled with escapes (`$'\x2fetc'`) is checked
 * as the text bash will actually pass.
 */
import { ShellSyntaxError } from './shell-ast.js';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** `$'…'` from `start` (just after the opening quote): the decoded text and the position after the closing quote. */
export function readAnsiC(src: string, start: number): { text: string; end: number } {
  let pos = start;
  const unterminated = (): ShellSyntaxError =>
    new ShellSyntaxError(`unterminated $'…' at character ${pos + 1}`);
  let out = '';
  for (;;) {
    const c = src[pos];
    if (c === undefined) throw unterminated();
    pos++;
    if (c === "'") return { text: out, end: pos };
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = src[pos];
    if (e === undefined) throw unterminated();
    pos++;
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
    } else if (/[0-7]/.test(e)) {
      const digits = e + (/^[0-7]{0,2}/.exec(src.slice(pos, pos + 2))?.[0] ?? '');
      pos += digits.length - 1;
      out += String.fromCharCode(parseInt(digits, 8) & 0xff);
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const digits = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(src.slice(pos, pos + max))?.[0] ?? '';
      pos += digits.length;
      out += digits === '' ? `\\${e}` : String.fromCodePoint(Math.min(parseInt(digits, 16), 0x10ffff));
    } else if (e === 'c') {
      const ch = src[pos] ?? '';
      pos++;
      out += String.fromCharCode(ch.toUpperCase().charCodeAt(0) ^ 0x40);
    } else {
      out += `\\${e}`;
    }
  }
}
