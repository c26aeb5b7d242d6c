import { describe, expect, it } from 'vitest';
import { tinyPdf } from './media-fixtures.js';

/** Each object's offset as the cross-reference table gives it, and what stands there. */
function xrefTargets(pdf: string): string[] {
  const start = Number(/startxref\n(\d+)\n/.exec(pdf)?.[1]);
  const offsets = [...pdf.slice(start).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
  return offsets.map((offset) => pdf.slice(offset, pdf.indexOf('\n', offset)));
}

describe('tinyPdf', () => {
  it('makes a small page by default, with a cross-reference table that points at its objects', () => {
    const pdf = tinyPdf().toString('latin1');
    expect(pdf).toContain('/MediaBox [0 0 200 80]');
    expect(pdf).toContain('BT /F1 12 Tf 20 40 Td (Hello from a PDF) Tj ET');
    expect(xrefTargets(pdf)).toEqual(['1 0 obj', '2 0 obj', '3 0 obj', '4 0 obj', '5 0 obj']);
  });

  it('takes the page size, font size and text position', () => {
    const pdf = tinyPdf('Hello PDF', { width: 612, height: 792, fontSize: 24, x: 72, y: 700 }).toString(
      'latin1',
    );
    expect(pdf).toContain('/MediaBox [0 0 612 792]');
    expect(pdf).toContain('BT /F1 24 Tf 72 700 Td (Hello PDF) Tj ET');
    expect(xrefTargets(pdf)).toHaveLength(5);
    expect(xrefTargets(pdf).every((line) => / 0 obj$/.test(line))).toBe(true);
  });
});
