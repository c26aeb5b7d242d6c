/**
 * The benchmarks' extraction rules against hand-checked responses, including the tricky forms: GSM8K
 * numbers with commas, dollars and units; MMLU-Pro's "The answer is (C)" and its fallbacks in order;
 * HumanEval code blocks and how a completion joins the prompt.
 */
import { describe, expect, it } from 'vitest';
import { extractCode, gsm8kFlexibleExtract, humanEvalProgram, officialChoiceExtract } from './extract.js';

describe('GSM8K flexible extract (lm-evaluation-harness)', () => {
  it.each([
    ['So she paid $1,234.50 in total.', 1234.5],
    ['Each friend gets 3 apples, so that is 18 dollars', 18],
    ['The answer is 72.', 72],
    ['Step 1: 48/2 = 24\nStep 2: 48 + 24 = 72\n#### 72', 72],
    ['#### 1,000', 1000],
    ['It lost -$5 overall', -5],
    ['He ran 3.5 km.', 3.5],
    ['First 10, then 20... ', 20],
    ['Total: 72...', 72],
  ])('%j → %d', (response, expected) => {
    expect(gsm8kFlexibleExtract(response)).toBe(expected);
  });
  it('finds nothing without a number, and nothing in a malformed one', () => {
    expect(gsm8kFlexibleExtract('I do not know.')).toBeNull();
    expect(gsm8kFlexibleExtract('Version 1.2.3')).toBeNull();
  });
  it('takes the last number, as the rule says (not the one marked)', () => {
    expect(gsm8kFlexibleExtract('#### 72\n(checked in 2 steps)')).toBe(2);
  });
});

describe('MMLU-Pro official extraction', () => {
  it.each([
    ['Let us think. The answer is (C).', 'J', 'C'],
    ['so the answer is C', 'J', 'C'],
    ['I think the answer is (B), not the answer is (C)', 'J', 'B'],
    ['Reasoning...\nAnswer: D', 'J', 'D'],
    ['answer:\n  E', 'J', 'E'],
    // "Answer is" with a capital A is not the first pattern (case-sensitive), nor the second (no colon).
    ['The Answer is (E)', 'J', 'E'],
    ['A looks tempting, but I go with J', 'J', 'J'],
    ['The correct answer is (B).', 'D', 'B'],
  ])('%j (A–%s) → %s', (response, last, expected) => {
    expect(officialChoiceExtract(response, last)).toBe(expected);
  });
  it('the first pattern wins over a later "Answer:" line', () => {
    expect(officialChoiceExtract('Answer: A\n... so the answer is (H)', 'J')).toBe('H');
  });
  it('the second pattern takes the first line holding "answer:", its last one', () => {
    expect(officialChoiceExtract('answer: B or answer: C\nAnswer: D', 'J')).toBe('C');
  });
  it('a letter out of the range is no answer; a letter inside a word is not standalone', () => {
    expect(officialChoiceExtract('the answer is (E)', 'D')).toBeNull();
    expect(officialChoiceExtract('ANSWER: c', 'J')).toBeNull();
    // Python's \b: É is a word character, so "ÉB" holds no standalone B.
    expect(officialChoiceExtract('ÉB', 'J')).toBeNull();
    expect(officialChoiceExtract('Ça va, B', 'J')).toBe('B');
  });
});

describe('HumanEval code', () => {
  const task = {
    prompt: 'import math\n\n\ndef area(r: float) -> float:\n    """Area of a circle."""\n',
    test: 'def check(candidate):\n    assert candidate(1) == math.pi\n',
    entry_point: 'area',
  };
  it('takes the first python block, else the first fenced block, else the whole reply', () => {
    expect(extractCode('Here:\n```python\ndef area(r):\n    return 1\n```\n```python\nx = 2\n```')).toBe(
      'def area(r):\n    return 1\n',
    );
    expect(extractCode('```\n    return 3\n```')).toBe('    return 3\n');
    expect(extractCode('```js\nnope\n```\n```py\nyes = 1\n```')).toBe('yes = 1\n');
    expect(extractCode('    return r * r * math.pi\n')).toBe('    return r * r * math.pi\n');
  });
  it('a whole function follows the prompt; a body continues it; the tests and check() close it', () => {
    expect(humanEvalProgram(task, 'def area(r):\n    return math.pi * r * r\n')).toBe(
      `${task.prompt}\ndef area(r):\n    return math.pi * r * r\n\n\n${task.test}\n\ncheck(area)\n`,
    );
    expect(humanEvalProgram(task, '    return math.pi * r * r\n')).toBe(
      `${task.prompt}    return math.pi * r * r\n\n\n${task.test}\n\ncheck(area)\n`,
    );
  });
});
