import { z } from 'zod';
import { officialChoiceExtract } from './extract.js';
import { letteredOptions, letterOf, pureScorer, rank, type BenchmarkSpec } from './spec.js';

const text = z.string().trim().min(1);
const GpqaRowSchema = z.looseObject({
  Question: text,
  'Correct Answer': text,
  'Incorrect Answer 1': text,
  'Incorrect Answer 2': text,
  'Incorrect Answer 3': text,
});
type GpqaRow = z.infer<typeof GpqaRowSchema>;

const TEMPLATE =
  'What is the correct answer to this question: {Question}\n\nChoices:\n{choices}\n\nThink step by step, then finish your answer with "The correct answer is (X)" where X is the letter of the correct choice.';

/**
 * The four options in the order every user gets for the same seed: sorted by SHA-256 of
 * `seed:row:k`, k being the option's place in the row (0 the correct answer, 1–3 the incorrect ones).
 */
export function gpqaOrder(row: GpqaRow, rowIdx: number, seed: number): { choices: string[]; answer: string } {
  const given = [
    row['Correct Answer'],
    row['Incorrect Answer 1'],
    row['Incorrect Answer 2'],
    row['Incorrect Answer 3'],
  ];
  const order = given
    .map((_, k) => k)
    .sort((a, b) => (rank(seed, rowIdx, a) < rank(seed, rowIdx, b) ? -1 : 1));
  return { choices: order.map((k) => (given[k] as string).trim()), answer: letterOf(order.indexOf(0)) };
}

/** GPQA Diamond (Rein et al., 2023): 198 graduate-level science questions, four options. */
export const gpqaDiamond: BenchmarkSpec<GpqaRow> = {
  name: 'gpqa-diamond',
  title: 'GPQA-Diamond',
  dataset: 'Idavidrein/gpqa',
  config: 'gpqa_diamond',
  split: 'train',
  gated: true,
  rowSchema: GpqaRowSchema,
  template: TEMPLATE,
  scoring:
    "as MMLU-Pro for A–D: the first `answer is \\(?([A-D])\\)?`, else `.*[aA]nswer:\\s*([A-D])`, else the last standalone letter A–D; right when it is the correct option's letter after the seeded shuffle",
  question: (row, rowIdx, seed) => {
    const { choices, answer } = gpqaOrder(row, rowIdx, seed);
    const question = row.Question.trim();
    const values: Record<string, string> = { Question: question, choices: letteredOptions(choices, 'paren') };
    return {
      prompt: TEMPLATE.replace(/\{(Question|choices)\}/g, (_, key: string) => values[key] as string),
      question,
      answer,
      choices,
    };
  },
  scorer: async () =>
    pureScorer(
      'gpqa-diamond',
      (answer) => officialChoiceExtract(answer, 'D'),
      (extracted, item) => extracted === item.answer,
    ),
};
