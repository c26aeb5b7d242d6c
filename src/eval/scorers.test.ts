import { describe, expect, it } from 'vitest';
import type { EvalItem } from './dataset.js';
import { extractChoice, extractNumber, localScorer, normalizeText } from './scorers.js';

const item = (answer: string, choices?: string[]): EvalItem => ({
  id: 'x',
  prompt: 'q',
  question: 'q',
  answer,
  attachments: [],
  line: 1,
  ...(choices ? { choices } : {}),
});

describe('extraction', () => {
  it('normalizes case, accents, whitespace and end punctuation', () => {
    expect(normalizeText('  "Café  au Lait." ')).toBe('cafe au lait');
  });
  it('reads the marked number, else the last one', () => {
    expect(extractNumber('3 bags of 4 is 12.\n#### 1,234')).toBe(1234);
    expect(extractNumber('The answer is $42.50, not 7')).toBe(42.5);
    expect(extractNumber('First 3, then -7.')).toBe(-7);
    expect(extractNumber('no number')).toBeNull();
  });
  it('reads the chosen letter', () => {
    expect(extractChoice('I think the answer is (C).', 4)).toBe('C');
    expect(extractChoice('Answer: (b)', 4)).toBe('B');
    expect(extractChoice('Answer: D', 4)).toBe('D');
    expect(extractChoice('The answer is a hard one; I pick C', 4)).toBe('C');
    expect(extractChoice('Reasoning…\n**D**', 4)).toBe('D');
    expect(extractChoice('B', 4)).toBe('B');
    expect(extractChoice('A or B, hard to say', 4)).toBeNull();
    expect(extractChoice('E is not an option', 4)).toBeNull();
  });
});

describe('localScorer', () => {
  it('grades each way', async () => {
    expect((await localScorer('exact').score('Canberra.', item('canberra'))).correct).toBe(true);
    expect((await localScorer('exact').score('It is Canberra', item('canberra'))).correct).toBe(false);
    expect((await localScorer('contains').score('It is Canberra', item('Canberra'))).correct).toBe(true);
    expect((await localScorer('numeric').score('about 3.1416', item('3.14159'))).correct).toBe(false);
    expect(
      (await localScorer('numeric', { tolerance: 1e-3 }).score('about 3.1416', item('3.14159'))).correct,
    ).toBe(true);
    expect((await localScorer('choice').score('The answer is B', item('B', ['x', 'y']))).correct).toBe(true);
    expect((await localScorer('regex').score('It was 1969.', item('19[67]\\d'))).correct).toBe(true);
    expect(await localScorer('exact').score(null, item('x'))).toEqual({ correct: false, extracted: null });
  });
  it('keys answers the way they are compared (for the majority vote)', () => {
    expect(localScorer('numeric').key('so 12 apples', item('12'))).toBe('12');
    expect(localScorer('choice').key('(c)', item('C', ['a', 'b', 'c']))).toBe('C');
    expect(localScorer('numeric').key('none', item('1'))).toBeNull();
  });
});
