import { describe, expect, it } from 'vitest';
import { inertJson, inertText, inertValue, inertWriter } from './terminal-text.js';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** No character a terminal would act on (other than newline and tab) is left. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\0-\x08\x0B-\x1F\x7F-\x9F\u2028\u2029\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u;

describe('inertText', () => {
  it.each([
    ['CSI: clear screen and home', `${ESC}[2J${ESC}[H`, '␛[2J␛[H'],
    ['CSI: forged colour', `${ESC}[31mFAKE SYSTEM MESSAGE${ESC}[0m`, '␛[31mFAKE SYSTEM MESSAGE␛[0m'],
    ['OSC 0 title, BEL-terminated', `${ESC}]0;PWNED${BEL}`, '␛]0;PWNED␇'],
    ['OSC 0 title, ST-terminated', `${ESC}]0;PWNED${ST}`, '␛]0;PWNED␛\\'],
    [
      'OSC 8 hyperlink, BEL-terminated',
      `${ESC}]8;;https://evil.example${BEL}click${ESC}]8;;${BEL}`,
      '␛]8;;https://evil.example␇click␛]8;;␇',
    ],
    [
      'OSC 8 hyperlink, ST-terminated',
      `${ESC}]8;;https://evil.example${ST}click${ESC}]8;;${ST}`,
      '␛]8;;https://evil.example␛\\click␛]8;;␛\\',
    ],
    ['OSC 52 clipboard, BEL', `${ESC}]52;c;cm0gLXJmIH4=${BEL}`, '␛]52;c;cm0gLXJmIH4=␇'],
    ['OSC 52 clipboard, ST', `${ESC}]52;c;cm0gLXJmIH4=${ST}`, '␛]52;c;cm0gLXJmIH4=␛\\'],
    ['DCS', `${ESC}Pq#0;2;0;0;0${ST}`, '␛Pq#0;2;0;0;0␛\\'],
    ['APC', `${ESC}_payload${ST}`, '␛_payload␛\\'],
    ['PM and SOS', `${ESC}^pm${ST}${ESC}Xsos${ST}`, '␛^pm␛\\␛Xsos␛\\'],
    ['8-bit C1 CSI', '\u009b2J\u009b31mred', '\\u009B2J\\u009B31mred'],
    ['8-bit C1 OSC and ST', '\u009d0;PWNED\u009c', '\\u009D0;PWNED\\u009C'],
    ['C1 NEL', 'a\u0085b', 'a\\u0085b'],
    ['lone CR', 'safe text\rFORGED', 'safe text␍FORGED'],
    ['CR at the very end', 'line\r', 'line␍'],
    ['backspace', 'rm -rf /\b\b\b\bls', 'rm -rf /␈␈␈␈ls'],
    ['BEL, NUL, vertical tab, form feed, DEL', `a${BEL}b\0c\vd\fe\x7f`, 'a␇b␀c␋d␌e␡'],
    ['bidi override', 'file\u202Etxt.exe', 'file\\u202Etxt.exe'],
    ['bidi embeddings and pop', '\u202A\u202B\u202C\u202D', '\\u202A\\u202B\\u202C\\u202D'],
    ['bidi isolates', '\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
    ['direction marks', 'a\u200Eb\u200Fc\u061Cd', 'a\\u200Eb\\u200Fc\\u061Cd'],
    [
      'zero-width space, word joiner, BOM, soft hyphen',
      'p\u200Ba\u2060y\uFEFFp\u00ADal',
      'p\\u200Ba\\u2060y\\uFEFFp\\u00ADal',
    ],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['tag characters outside a flag (ASCII smuggling)', 'hi\u{E0041}\u{E0042}', 'hi\\u{E0041}\\u{E0042}'],
  ])('%s', (_name, input, expected) => {
    const out = inertText(input);
    expect(out).toBe(expected);
    expect(out).not.toMatch(ACTIVE);
    expect(out).not.toContain(ESC);
  });

  it.each([
    ['ASCII', 'The answer is 42.'],
    ['newlines and tabs', 'line 1\n\tindented\nline 3\n'],
    ['CJK', '中文回答：六乘以七等于四十二。日本語、한국어'],
    ['emoji, skin tones, variation selectors', '😀 👍🏽 ❤️ ✔︎'],
    ['emoji ZWJ sequences', '👨‍👩‍👧‍👦 🏳️‍🌈'],
    ['ZWNJ in Persian', 'می‌خواهم'],
    ['emoji tag sequence (flag of Scotland)', '🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
    ['accents and combining marks', 'café naïve e\u0301'],
    ['right-to-left script itself', 'مرحبا שלום'],
    ['box drawing and control pictures already', '┌─┐ ␛[2J'],
    ['an empty string', ''],
  ])('leaves %s untouched', (_name, text) => {
    expect(inertText(text)).toBe(text);
  });

  it('turns CRLF into a newline', () => {
    expect(inertText('a\r\nb\r\n')).toBe('a\nb\n');
  });

  it('is idempotent', () => {
    const nasty = `${ESC}]0;x${BEL}\u009b2J\u202Ea\rb\u{E0041}`;
    expect(inertText(inertText(nasty))).toBe(inertText(nasty));
  });

  it('works chunk by chunk: a sequence split across chunks is still inert', () => {
    const chunks = [`before ${ESC}`, '[2J', `${ESC}]`, `0;PWNED${BEL}`, ' after'];
    expect(chunks.map(inertText).join('')).toBe(inertText(chunks.join('')));
    expect(chunks.map(inertText).join('')).toBe('before ␛[2J␛]0;PWNED␇ after');
  });
});

describe('inertWriter', () => {
  it('makes what it writes inert', () => {
    let out = '';
    const write = inertWriter((text) => (out += text));
    write(`${ESC}[2Jhello\n`);
    expect(out).toBe('␛[2Jhello\n');
  });
});

describe('inertValue', () => {
  it('escapes every string and key, deep, except the kept properties', () => {
    const event = {
      type: 'tool.call.finished',
      agentId: 'a',
      callId: `call${ESC}1`,
      result: `${ESC}]0;PWNED${BEL}`,
      arguments: { [`k${ESC}`]: [`v\u202E`, 1, null, true] },
    };
    expect(inertValue(event, new Set(['callId']))).toEqual({
      type: 'tool.call.finished',
      agentId: 'a',
      callId: `call${ESC}1`,
      result: '␛]0;PWNED␇',
      arguments: { 'k␛': ['v\\u202E', 1, null, true] },
    });
  });

  it('returns the very same value when nothing needed escaping', () => {
    const event = { type: 'agent.text.delta', text: 'plain 中文 😀\n', nested: [{ a: 'b' }] };
    expect(inertValue(event)).toBe(event);
  });

  it('copies instead of mutating', () => {
    const event = { text: `${ESC}[2J` };
    const out = inertValue(event);
    expect(out).not.toBe(event);
    expect(event.text).toBe(`${ESC}[2J`);
  });

  it('leaves class instances and non-strings alone', () => {
    const date = new Date(0);
    expect(inertValue({ date, n: 1 }).date).toBe(date);
    expect(inertValue(42)).toBe(42);
    expect(inertValue(`${ESC}`)).toBe('␛');
  });
});

describe('inertJson', () => {
  it('spells what JSON leaves raw as \\u escapes, and parses back to the same value', () => {
    const value = {
      text: `${ESC}]52;c;eA==${BEL} \u009b2J \u202Eexe.txt a\u2028b \x7f hi\u{E0041} 中文 😀`,
      [`k\u009d`]: [1, null, true],
    };
    const json = inertJson(value, 2);
    expect(json).not.toMatch(ACTIVE);
    expect(json).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
    expect(json).toContain(
      '\\u001b]52;c;eA==\\u0007 \\u009B2J \\u202Eexe.txt a\\u2028b \\u007F hi\\uDB40\\uDC41',
    );
    expect(JSON.parse(json)).toEqual(value);
    expect(inertJson({ plain: 'text 中文' })).toBe(JSON.stringify({ plain: 'text 中文' }));
  });
});
