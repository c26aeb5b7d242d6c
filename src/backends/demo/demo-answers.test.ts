import { describe, expect, it } from 'vitest';
import { demoAnswers } from './demo-answers.js';

describe('what the scripted team knows', () => {
  it.each([
    ['What is 6 times 7?', '6 × 7 = 42.', 'Quick one: 41.', 'Check: 42 ÷ 7 = 6.'],
    ["What's 12 + 30?", '12 + 30 = 42.', 'Quick one: 41.', 'Check: 42 − 30 = 12.'],
    ['What is 1000 minus 1?', '1000 − 1 = 999.', 'Quick one: 998.', 'Check: 999 + 1 = 1000.'],
    ['What is 144 divided by 12?', '144 ÷ 12 = 12.', 'Quick one: 11.', 'Check: 12 × 12 = 144.'],
    ['what is 0.1 plus 0.2', '0.1 + 0.2 = 0.3.', 'Quick one: -0.7.', 'Check: 0.3 − 0.2 = 0.1.'],
    ['What is -3 x 4?', '-3 × 4 = -12.', 'Quick one: -13.', 'Check: -12 ÷ 4 = -3.'],
  ])('%s', (question, ada, linus, check) => {
    const answers = demoAnswers(question);
    expect(answers.ada).toBe(ada);
    expect(answers.linus).toBe(linus);
    expect(answers.graceRevised).toContain(check);
    expect(answers.graceRevised.startsWith(answers.grace.slice(0, -1))).toBe(true);
  });

  it('division by zero has no answer, except for the hasty one', () => {
    const answers = demoAnswers('What is 5 divided by 0?');
    expect(answers.ada).toContain('undefined');
    expect(answers.linus).toBe('Infinity.');
  });

  it('a few facts, with the hasty one wrong', () => {
    expect(demoAnswers('What is the capital of Australia?')).toMatchObject({
      ada: 'Canberra.',
      linus: 'Sydney.',
    });
    expect(demoAnswers('Who wrote Hamlet?').grace).toContain('William Shakespeare');
  });

  it('anything else: every persona says what the team can do, each in its own words', () => {
    const answers = demoAnswers('Write me a poem');
    expect(answers.graceRevised).toContain('What is 6 times 7?');
    expect(new Set([answers.ada, answers.linus, answers.grace, answers.graceRevised]).size).toBe(4);
  });
});
