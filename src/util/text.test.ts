import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import {
  NARROW,
  cell,
  fitStart,
  padEndTo,
  padStartTo,
  tailFrom,
  textWidth,
  truncate,
  wrapText,
} from './text.js';

const FAMILY = '👨‍👩‍👧‍👦'; // man ZWJ woman ZWJ girl ZWJ boy: one character, two columns
const FLAGS = '🇯🇵🇫🇷🇨🇳'; // three regional-indicator pairs
const ACCENTED = 'e\u0301te\u0301'; // "été" with combining acute accents
const STACKED = 'a\u0301\u0302\u0303'; // one letter, three marks

const clusters = (text: string): string[] =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

/** Every sample mixes the scripts and sequences that break code-unit counting. */
const SAMPLES = [
  '東京は日本の首都です。京都は古い都です。',
  '北京是中国的首都，也是政治和文化中心。',
  `family ${FAMILY} and flags ${FLAGS} and ${ACCENTED} ${STACKED}`,
  `${FAMILY}${FAMILY}${FAMILY}${FLAGS}${FLAGS}`,
  `mixed 中文 text with emoji 🚀✨ and ${ACCENTED} everywhere 한국어 텍스트`,
  `${STACKED}${STACKED}${STACKED}${STACKED}${STACKED}`,
];

describe('the narrow set measured without string-width', () => {
  it('holds only characters string-width gives one column, each a grapheme cluster of its own', () => {
    const narrow: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      if (NARROW.test(char)) narrow.push(char);
    }
    expect(narrow.length).toBeGreaterThan(95);
    expect(narrow.filter((char) => stringWidth(char, { countAnsiEscapeCodes: true }) !== 1)).toEqual([]);
    const all = narrow.join('');
    const clusters = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(all)];
    expect(clusters).toHaveLength(all.length);
    expect(textWidth('a — b … → ─')).toBe(11);
    // Outside the set string-width decides: an emoji-presentation square, a soft hyphen, an accent.
    expect(textWidth('\u25FE')).toBe(2);
    expect(textWidth('a\u00AD')).toBe(1);
    expect(textWidth('e\u0301—')).toBe(2);
  });
});

describe('textWidth', () => {
  it('counts terminal columns: wide CJK and emoji two, combining marks none', () => {
    expect(textWidth('abc')).toBe(3);
    expect(textWidth('中文')).toBe(4);
    expect(textWidth('日本語')).toBe(6);
    expect(textWidth('한국어')).toBe(6);
    expect(textWidth(FAMILY)).toBe(2);
    expect(textWidth(FLAGS)).toBe(6);
    expect(textWidth(ACCENTED)).toBe(3);
    expect(textWidth(STACKED)).toBe(1);
    expect(textWidth('🚀')).toBe(2);
  });

  it('treats text as plain text: an escape sequence counts as the characters it holds', () => {
    expect(textWidth('\x1b[31mred')).toBe('[31mred'.length);
    // Inert text shows ESC as ␛, one column.
    expect(textWidth('␛[31mred')).toBe(8);
  });
});

describe('truncate', () => {
  it('keeps text that fits and marks a cut with …', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('中文中文中文', 12)).toBe('中文中文中文');
    expect(truncate('中文中文中文', 7)).toBe('中文中…');
    // A wide character that would straddle the last column is left out, not half shown.
    expect(truncate('中文中文中文', 6)).toBe('中文…');
    expect(truncate(`${FAMILY}x${FAMILY}`, 4)).toBe(`${FAMILY}x…`);
    expect(truncate(`${FAMILY}x${FAMILY}`, 2)).toBe('…');
    expect(truncate(ACCENTED + ACCENTED, 4)).toBe('e\u0301te\u0301…');
  });

  it('never exceeds the width and never cuts inside a character', () => {
    for (const text of SAMPLES) {
      const whole = clusters(text);
      for (let max = 1; max <= textWidth(text) + 1; max++) {
        const cut = truncate(text, max);
        expect(textWidth(cut), `${text} at ${max}: ${cut}`).toBeLessThanOrEqual(max);
        const kept = cut.endsWith('…') && cut !== text ? cut.slice(0, -1) : cut;
        const parts = clusters(kept);
        expect(parts, `${text} at ${max}`).toEqual(whole.slice(0, parts.length));
      }
    }
  });

  it('reads only the start of a huge text', () => {
    const huge = '中'.repeat(2_000_000);
    expect(truncate(huge, 10)).toBe('中中中中…');
  });
});

describe('fitStart, padding and cells', () => {
  it('fits, pads and cuts by columns', () => {
    expect(fitStart('日本語テキスト', 5)).toBe('日本');
    expect(fitStart(`${FAMILY}${FAMILY}`, 3)).toBe(FAMILY);
    expect(padEndTo('中文', 6)).toBe('中文  ');
    expect(padStartTo('中文', 6)).toBe('  中文');
    expect(padEndTo('中文中文', 4)).toBe('中文中文');
    expect(cell('日本語テキスト', 6)).toBe('日本… ');
    expect(textWidth(cell('日本語テキスト', 6))).toBe(6);
    expect(cell(FAMILY, 5)).toBe(`${FAMILY}   `);
  });
});

describe('wrapText', () => {
  it('wraps at spaces and splits long words', () => {
    expect(wrapText('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('x\ny', 10)).toEqual(['x', 'y']);
    expect(wrapText('', 10)).toEqual(['']);
    expect(wrapText('a\n\nb', 10)).toEqual(['a', '', 'b']);
  });

  it('fills lines with CJK text, which has no spaces, by columns', () => {
    expect(wrapText('東京は日本の首都です。', 9)).toEqual(['東京は日', '本の首都', 'です。']);
    expect(wrapText('1. 北京是中国的首都', 10)).toEqual(['1. 北京是', '中国的首都']);
  });

  it('keeps a paragraph’s indentation on the lines it wraps to', () => {
    expect(wrapText('  - a list item that wraps', 12)).toEqual(['  - a list', '  item that', '  wraps']);
  });

  it('never exceeds the width and never cuts inside a character', () => {
    for (const text of SAMPLES) {
      const whole = clusters(text.replace(/\s+/g, ''));
      for (let width = 2; width <= 30; width++) {
        const lines = wrapText(text, width);
        for (const line of lines)
          expect(textWidth(line), `${text} at ${width}: ${line}`).toBeLessThanOrEqual(width);
        // Joined back without the whitespace the wrap dropped, the characters are the same ones.
        expect(clusters(lines.join('').replace(/\s+/g, '')), `${text} at ${width}`).toEqual(whole);
      }
    }
  });

  it('gives a character wider than the line a line of its own', () => {
    expect(wrapText('ab中', 1)).toEqual(['a', 'b', '中']);
  });
});

describe('tailFrom', () => {
  it('starts at a character boundary at or a little after the index', () => {
    const text = `ab${FAMILY}cd`;
    expect(tailFrom(text, 2)).toBe(`${FAMILY}cd`);
    expect(tailFrom(text, 4)).toBe('cd');
    // Where a pair of regional indicators starts depends on the run before: past the run of flags.
    expect(tailFrom(`x${FLAGS} y`, 2)).toBe(' y');
    // After a combining mark the next boundary is only certain one character on.
    expect(tailFrom(ACCENTED, 1)).toBe('e\u0301');
    expect(tailFrom('abc', 0)).toBe('abc');
    expect(tailFrom('abc', 5)).toBe('');
  });
});

describe('long text', () => {
  it('is measured, wrapped and cut in time linear in its length, with the same results', () => {
    const unit = `東京は日本の首都です。${FAMILY}🇯🇵🇫🇷 e\u0301te\u0301 한국어 `;
    const long = unit.repeat(2_000); // 64 000 code units: V8 segments a string that long in seconds
    expect(textWidth(long)).toBe(textWidth(unit) * 2_000);
    const lines = wrapText(long, 37);
    expect(lines).toHaveLength(3_000);
    // A cut inside a character would leave a line starting with a mark, a ZWJ or half a flag pair.
    const broken =
      /^(?:\p{M}|\u200D)|\u200D$|^(?:\p{Regional_Indicator}{2})*\p{Regional_Indicator}(?!\p{Regional_Indicator})/u;
    for (const line of lines) {
      expect(textWidth(line)).toBeLessThanOrEqual(37);
      expect(line).not.toMatch(broken);
    }
    expect(lines.join('').replace(/\s+/g, '')).toBe(long.replace(/\s+/g, ''));
    const kept = truncate(long, 10_001).slice(0, -1);
    expect(long.startsWith(kept)).toBe(true);
    expect(textWidth(kept)).toBeLessThanOrEqual(10_000);
    expect(long.slice(kept.length)).not.toMatch(/^(?:\p{M}|\u200D|[\uDC00-\uDFFF])/u);
  });
});
