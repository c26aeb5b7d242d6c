import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';

/** One line of an eval dataset in massgen's own shape. Other keys are allowed and ignored. */
export const EvalLineSchema = z.looseObject({
  id: z.union([z.string().trim().min(1, { error: 'must not be empty' }), z.int()]).transform(String),
  question: z.string().trim().min(1, { error: 'must not be empty' }),
  /** The reference: text, a number, a choice letter, or (scorer `regex`) a pattern. */
  answer: z.union([z.string().trim().min(1, { error: 'must not be empty' }), z.number()]).transform(String),
  /** Multiple choice: the options, shown to the team as `A. …`, `B. …`. */
  choices: z
    .array(z.union([z.string(), z.number()]).transform(String))
    .min(2)
    .max(26)
    .optional(),
  /** Text files sent with the question, relative to the dataset file. */
  attachments: z.array(z.string().min(1)).optional(),
});

/** The public formats a line may come in (`auto`: recognised line by line). */
export const DATASET_FORMATS = ['auto', 'massgen', 'mmlu', 'gpqa', 'gsm8k'] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

/** A question of the eval, ready to send. */
export interface EvalItem {
  id: string;
  /** What the team is asked: the question, with its choices lettered for multiple choice. */
  prompt: string;
  /** The question as the dataset gives it. */
  question: string;
  /** The reference answer; for multiple choice, the letter. */
  answer: string;
  choices?: string[];
  /** Absolute paths. */
  attachments: string[];
  /** 1-based line in the dataset file. */
  line: number;
}

/** What {@link readDataset} found. */
export interface Dataset {
  file: string;
  items: EvalItem[];
}

export const letterOf = (index: number): string => String.fromCharCode(65 + index);

/** The question with its choices lettered, and the instruction to answer with the letter. */
export function renderChoices(question: string, choices: readonly string[]): string {
  const options = choices.map((choice, i) => `${letterOf(i)}. ${choice}`).join('\n');
  const letters = choices.map((_, i) => letterOf(i)).join(', ');
  return `${question}\n\n${options}\n\nAnswer with the letter of the correct option (${letters}).`;
}

/** GSM8K's reference: the number after `####` (commas removed), or the text as it is. */
export function gsm8kAnswer(answer: string): string {
  const match = /####\s*(.+?)\s*$/s.exec(answer);
  return match ? (match[1] as string).replace(/,/g, '').trim() : answer.trim();
}

/** A stable order for GPQA's choices: by a hash of the id and the choice, so reruns ask the same. */
function stableShuffle(id: string, choices: string[]): string[] {
  const key = (c: string) => createHash('sha256').update(`${id}\u0000${c}`).digest('hex');
  return [...choices].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

type Raw = Record<string, unknown>;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;

/** Which public format a line is in (for `auto`). */
function detect(raw: Raw): Exclude<DatasetFormat, 'auto'> {
  if ('Correct Answer' in raw && 'Question' in raw) return 'gpqa';
  if (Array.isArray(raw.choices) && typeof raw.answer === 'number') return 'mmlu';
  if (typeof raw.answer === 'string' && /####/.test(raw.answer)) return 'gsm8k';
  return 'massgen';
}

/** A line of a public format as a massgen line (ids default to the line number). */
function toMassgen(raw: Raw, format: Exclude<DatasetFormat, 'auto'>, line: number): unknown {
  const id = raw.id ?? raw['Record ID'] ?? String(line);
  switch (format) {
    case 'massgen':
      return raw;
    case 'gsm8k': {
      const answer = text(raw.answer);
      return { ...raw, id, ...(answer === undefined ? {} : { answer: gsm8kAnswer(answer) }) };
    }
    case 'mmlu': {
      // MMLU (Hugging Face): choices and the index of the right one; a letter is taken as it is.
      const answer = typeof raw.answer === 'number' ? letterOf(raw.answer) : raw.answer;
      return { ...raw, id, answer };
    }
    case 'gpqa': {
      const correct = text(raw['Correct Answer']);
      const wrong = [1, 2, 3]
        .map((n) => text(raw[`Incorrect Answer ${n}`]))
        .filter((c): c is string => c !== undefined && c !== '');
      if (correct === undefined) return { id, question: raw.Question };
      const choices = stableShuffle(String(id), [correct, ...wrong]);
      return { id, question: raw.Question, choices, answer: letterOf(choices.indexOf(correct)) };
    }
  }
}

/** The first problem zod found, as `"key": message`. */
function describeIssue(error: z.ZodError, line: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'not a valid dataset line';
  const key = issue.path.join('.');
  const given = issue.path.length === 1 && (line as Raw)[String(issue.path[0])] !== undefined;
  if (issue.path.length === 1 && !given) return `"${key}" is missing`;
  return key === '' ? issue.message : `"${key}": ${issue.message}`;
}

/**
 * Reads an eval dataset: JSON Lines, one question per line, in massgen's shape
 * (`{id, question, answer, choices?, attachments?}`) or a common public one (MMLU-style
 * `{question, choices, answer: index}`, GPQA's `Question`/`Correct Answer`/`Incorrect Answer N`,
 * GSM8K's `#### 42` answers). Blank lines are ignored.
 *
 * @throws {ConfigError} naming the line for a malformed line or a duplicate id, and for an unreadable file.
 */
export function readDataset(
  file: string,
  options: { cwd: string; format?: DatasetFormat; limit?: number },
): Dataset {
  const absolute = path.resolve(options.cwd, file);
  let body: string;
  try {
    body = readFileSync(absolute, 'utf8');
  } catch (error) {
    const why = errorCode(error) === 'ENOENT' ? 'file not found' : (errorCode(error) ?? String(error));
    throw new ConfigError(`cannot read the dataset ${absolute}: ${why}`, {
      hint: 'pass --dataset FILE: JSON Lines, one {"id", "question", "answer"} per line',
    });
  }
  const dir = path.dirname(absolute);
  const items: EvalItem[] = [];
  const firstLineOf = new Map<string, number>();
  const fail = (line: number, message: string): never => {
    throw new ConfigError(`${file}:${line}: ${message}`, {
      hint: 'each line: {"id": "q1", "question": "…", "answer": "…", "choices"?: […]} (docs/eval.md)',
    });
  };
  for (const [index, rawLine] of body.split('\n').entries()) {
    const line = index + 1;
    const trimmed = rawLine.trim();
    if (trimmed === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      fail(line, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      fail(line, 'expected a JSON object like {"id": "q1", "question": "…", "answer": "…"}');
    const raw = json as Raw;
    const format = !options.format || options.format === 'auto' ? detect(raw) : options.format;
    const shaped = toMassgen(raw, format, line);
    const parsed = EvalLineSchema.safeParse(shaped);
    if (!parsed.success) fail(line, describeIssue(parsed.error, shaped));
    const { id, question, answer, choices, attachments } = parsed.data as z.infer<typeof EvalLineSchema>;
    const first = firstLineOf.get(id);
    if (first !== undefined) fail(line, `duplicate id "${id}" (first on line ${first})`);
    firstLineOf.set(id, line);
    const isLetter =
      /^[A-Z]$/i.test(answer) && answer.toUpperCase().charCodeAt(0) - 65 < (choices?.length ?? 0);
    if (choices && !isLetter && !choices.includes(answer))
      fail(line, `"answer": expected a letter A–${letterOf(choices.length - 1)} or one of the choices`);
    const letter = choices ? (isLetter ? answer.toUpperCase() : letterOf(choices.indexOf(answer))) : answer;
    items.push({
      id,
      prompt: choices ? renderChoices(question, choices) : question,
      question,
      answer: letter,
      ...(choices ? { choices } : {}),
      attachments: (attachments ?? []).map((a) => path.resolve(dir, a)),
      line,
    });
    if (options.limit !== undefined && items.length >= options.limit) break;
  }
  return { file: absolute, items };
}
