import { z } from 'zod';
import { gsm8kAnswer } from '../dataset.js';
import { gsm8kFlexibleExtract } from './extract.js';
import { pureScorer, type BenchmarkSpec } from './spec.js';

const Gsm8kRowSchema = z.looseObject({
  question: z.string().trim().min(1),
  /** The worked solution, ending `#### <number>`. */
  answer: z
    .string()
    .regex(/####\s*-?[\d,]*\.?\d+\s*$/, { error: 'expected a solution ending "#### <number>"' }),
});
type Gsm8kRow = z.infer<typeof Gsm8kRowSchema>;

const TEMPLATE =
  'Solve the following math problem step by step. On the last line, write "####" followed by the final answer as a number only.\n\nQuestion: {question}';

/** GSM8K (Cobbe et al., 2021): grade-school math word problems with a numeric answer. */
export const gsm8k: BenchmarkSpec<Gsm8kRow> = {
  name: 'gsm8k',
  title: 'GSM8K',
  dataset: 'openai/gsm8k',
  config: 'main',
  split: 'test',
  gated: false,
  rowSchema: Gsm8kRowSchema,
  template: TEMPLATE,
  scoring:
    'the last number in the response (lm-evaluation-harness "flexible-extract": `(-?[$0-9.,]{2,})|(-?[0-9]+)`, last match holding a digit; `,` and `$` removed, trailing `.`s dropped), compared as a number with the one after `####` in the reference',
  question: (row) => ({
    prompt: TEMPLATE.replace('{question}', () => row.question.trim()),
    question: row.question.trim(),
    answer: gsm8kAnswer(row.answer),
  }),
  scorer: async () =>
    pureScorer(
      'gsm8k',
      (answer) => {
        const value = gsm8kFlexibleExtract(answer);
        return value === null ? null : String(value);
      },
      (extracted, item) => Number(extracted) === Number(item.answer),
    ),
};
