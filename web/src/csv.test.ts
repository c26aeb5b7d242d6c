import { describe, expect, it } from 'vitest';
import { parseDelimited, separatorFor } from './csv.js';

describe('parseDelimited', () => {
  it('reads quoted fields with separators, doubled quotes and line breaks; CRLF or LF', () => {
    const text = 'name,quote\r\n"Smith, J","said ""hi""\nthen left"\nplain,x\n';
    expect(parseDelimited(text)).toEqual({
      rows: [
        ['name', 'quote'],
        ['Smith, J', 'said "hi"\nthen left'],
        ['plain', 'x'],
      ],
      truncated: false,
    });
  });

  it('keeps empty fields and a last line without a line end; TSV by name', () => {
    expect(parseDelimited('a,,c\n,2,').rows).toEqual([
      ['a', '', 'c'],
      ['', '2', ''],
    ]);
    expect(separatorFor('data/x.tsv')).toBe('\t');
    expect(separatorFor('x.csv')).toBe(',');
    expect(parseDelimited('a\tb\n1\t2', '\t').rows).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('stops after maxRows and says the rest was left out', () => {
    const text = Array.from({ length: 10 }, (_, i) => `${i},x`).join('\n');
    const { rows, truncated } = parseDelimited(text, ',', 3);
    expect(rows).toHaveLength(3);
    expect(truncated).toBe(true);
    expect(parseDelimited('a\nb\n', ',', 2).truncated).toBe(false);
  });
});
