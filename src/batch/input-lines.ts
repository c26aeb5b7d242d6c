import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isExampleRef } from '../app/essentials.js';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';

/**
 * One line of a batch's input file (JSON Lines). Keys other than these are allowed and ignored, so
 * a file can carry its own metadata (an expected answer, a tag) for whatever reads the results.
 */
export const BatchInputLineSchema = z.looseObject({
  /** Unique in the file; a number is taken as its decimal string. */
  id: z.union([z.string().trim().min(1, { error: 'must not be empty' }), z.int()]).transform(String),
  question: z.string().trim().min(1, { error: 'must not be empty' }),
  /** Text files whose contents go with the question; paths relative to the input file. */
  attachments: z.array(z.string().min(1)).optional(),
  /** This line's config instead of `--config`: a path relative to the input file, or `@examples/NAME`. */
  config: z.string().min(1).optional(),
});

/** A question of the batch, ready to run. */
export interface BatchItem {
  id: string;
  question: string;
  /** Absolute paths. */
  attachments: string[];
  /** Absolute path or `@examples/NAME`; absent: the batch's own config. */
  config?: string;
  /** 1-based line in the input file. */
  line: number;
}

/** A line that is not a valid question: reported and skipped (or fatal with `strict`). */
export interface InputProblem {
  line: number;
  message: string;
}

/** What {@link readBatchInput} found. */
export interface BatchInput {
  file: string;
  items: BatchItem[];
  /** Malformed lines, skipped. Empty with `strict` (the first one throws instead). */
  skipped: InputProblem[];
}

/** The first problem zod found, as `"key": message`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not a valid question line';
  const key = issue.path.join('.');
  if (issue.code === 'invalid_type' && issue.input === undefined) return `"${key}" is missing`;
  return key === '' ? issue.message : `"${key}": ${issue.message}`;
}

/**
 * Reads a batch input file: one JSON object per line, `{"id", "question", "attachments"?, "config"?}`;
 * blank lines are ignored. Malformed lines are returned in `skipped` with their line numbers, or with
 * `strict` the first one is an error. Two lines with the same id are always an error naming both.
 *
 * @throws {ConfigError} for an unreadable file, a duplicate id, or (with `strict`) a malformed line.
 */
export function readBatchInput(file: string, options: { cwd: string; strict?: boolean }): BatchInput {
  const absolute = path.resolve(options.cwd, file);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    const why = errorCode(error) === 'ENOENT' ? 'file not found' : (errorCode(error) ?? String(error));
    throw new ConfigError(`cannot read the batch input ${absolute}: ${why}`, {
      hint: 'pass --input FILE: a JSON Lines file, one {"id": …, "question": …} per line',
    });
  }
  const dir = path.dirname(absolute);
  const items: BatchItem[] = [];
  const skipped: InputProblem[] = [];
  const firstLineOf = new Map<string, number>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '') return;
    const problem = (message: string) => {
      if (options.strict)
        throw new ConfigError(`${file}:${line}: ${message}`, {
          hint: 'fix the line, or leave out --strict to skip malformed lines',
        });
      skipped.push({ line, message });
    };
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      problem(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    const parsed = BatchInputLineSchema.safeParse(json);
    if (!parsed.success) {
      problem(
        typeof json === 'object' && json !== null && !Array.isArray(json)
          ? describeIssue(parsed.error)
          : 'expected a JSON object like {"id": "q1", "question": "…"}',
      );
      return;
    }
    const { id, question, attachments, config } = parsed.data;
    const first = firstLineOf.get(id);
    if (first !== undefined) {
      throw new ConfigError(`${file}:${line}: duplicate id "${id}" (first on line ${first})`, {
        hint: 'every line needs its own id: results are matched to questions (and resumed) by id',
      });
    }
    firstLineOf.set(id, line);
    items.push({
      id,
      question,
      attachments: (attachments ?? []).map((a) => path.resolve(dir, a)),
      ...(config === undefined ? {} : { config: isExampleRef(config) ? config : path.resolve(dir, config) }),
      line,
    });
  });
  return { file: absolute, items, skipped };
}
