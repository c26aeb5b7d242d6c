import { z } from 'zod';
import { officialChoiceExtract } from './extract.js';
import { letteredOptions, letterOf, pureScorer, type BenchmarkSpec } from './spec.js';

const MmluProRowSchema = z
  .looseObject({
    question_id: z.int().nonnegative(),
    question: z.string().trim().min(1),
    options: z.array(z.string()).min(2).max(10),
    answer: z.string().regex(/^[A-J]$/, { error: 'expected a letter A–J' }),
    answer_index: z.int().nonnegative(),
    category: z.string(),
  })
  .refine((row) => row.answer === letterOf(row.answer_index) && row.answer_index < row.options.length, {
    error: '"answer" and "answer_index" disagree, or point past the options',
    path: ['answer_index'],
  })
  .refine((row) => row.options[row.answer_index] !== 'N/A', {
    error: 'the right option is "N/A"',
    path: ['options'],
  });
type MmluProRow = z.infer<typeof MmluProRowSchema>;

/** The official script's prompt (`evaluate_from_api.py`) without its five examples: zero-shot. */
const TEMPLATE =
  'The following are multiple choice questions (with answers) about {category}. Think step by step and then output the answer in the format of "The answer is (X)" at the end.\n\nQuestion: {question}\nOptions: {options}\nAnswer: Let\'s think step by step.';

/**
 * The options as the official script sends them: "N/A" padding removed (`preprocess`), the rest
 * lettered in order; the reference is the right option's letter among them.
 */
function options(row: MmluProRow): { options: string[]; answer: string } {
  const kept = row.options.map((text, index) => ({ text, index })).filter((o) => o.text !== 'N/A');
  return {
    options: kept.map((o) => o.text),
    answer: letterOf(kept.findIndex((o) => o.index === row.answer_index)),
  };
}

/** MMLU-Pro (Wang et al., 2024): ten-option questions across 14 fields, zero-shot chain of thought. */
export const mmluPro: BenchmarkSpec<MmluProRow> = {
  name: 'mmlu-pro',
  title: 'MMLU-Pro',
  dataset: 'TIGER-Lab/MMLU-Pro',
  config: 'default',
  split: 'test',
  gated: false,
  rowSchema: MmluProRowSchema,
  template: TEMPLATE,
  scoring:
    'the official extraction (TIGER-AI-Lab/MMLU-Pro evaluate_from_api.py): the first `answer is \\(?([A-J])\\)?`, else `.*[aA]nswer:\\s*([A-J])`, else the last standalone letter A–J; right when it is the reference letter (an answer with none is wrong)',
  question: (row) => {
    const { options: shown, answer } = options(row);
    const question = row.question.trim();
    const values: Record<string, string> = {
      category: row.category,
      question,
      options: letteredOptions(shown, 'dot'),
    };
    return {
      prompt: TEMPLATE.replace(/\{(category|question|options)\}/g, (_, key: string) => values[key] as string),
      question,
      answer,
      choices: shown,
    };
  },
  scorer: async () =>
    pureScorer(
      'mmlu-pro',
      // A–J whatever the number of options, as the official script reads it.
      (answer) => officialChoiceExtract(answer, 'J'),
      (extracted, item) => extracted === item.answer,
    ),
};
