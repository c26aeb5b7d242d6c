/**
 * How each benchmark's authors (or the harness the field quotes) read an answer out of a model's
 * response. Each rule is written to match its source so numbers stay comparable with published ones;
 * docs/eval.md states every rule and where it differs.
 */

/**
 * lm-evaluation-harness's GSM8K "flexible-extract" filter: every match of
 * `(-?[$0-9.,]{2,})|(-?[0-9]+)`, the last one taken, then `,` and `$` removed and a trailing `.`
 * dropped (its `regexes_to_ignore`). Two differences, both about an ellipsis: a match must hold a
 * digit (a lone `...` after the answer is not the answer), and every trailing `.` is dropped (`72...`
 * reads 72, where the harness would compare `72..`). Null when no number is found or what is left is
 * not a number (`1.2.3`).
 */
export function gsm8kFlexibleExtract(response: string): number | null {
  const matches = [...response.matchAll(/(-?[$0-9.,]{2,})|(-?[0-9]+)/g)]
    .map((m) => m[0])
    .filter((m) => /\d/.test(m));
  const last = matches.at(-1);
  if (last === undefined) return null;
  const cleaned = last.replace(/[,$]/g, '').replace(/\.+$/, '');
  if (!/^-?(?:\d+\.?\d*|\.\d+)$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : null;
}

/**
 * A word character as Python 3's `re` reads `\w` in a text pattern (letters, digits and marks of any
 * script, and `_`): the official MMLU-Pro script is Python, and JavaScript's `\b` knows only ASCII.
 */
const WORD = String.raw`[\p{L}\p{N}\p{M}_]`;

/**
 * The letter a multiple-choice response picks, by MMLU-Pro's official extraction
 * (TIGER-Lab/MMLU-Pro `evaluate_from_api.py`: `extract_answer`, `extract_again`, `extract_final`):
 * 1. the first `answer is \(?([A-J])\)?` (case-sensitive, as in the script);
 * 2. else `.*[aA]nswer:\s*([A-J])` — the first line holding "answer:", its last one;
 * 3. else the last capital letter of the range standing alone (`\b[A-J]\b`).
 * `last` narrows the range (`D` for GPQA's four options). Null when nothing matches.
 */
export function officialChoiceExtract(response: string, last: string): string | null {
  const range = `A-${last}`;
  const first = new RegExp(String.raw`answer is \(?([${range}])\)?`).exec(response);
  if (first) return first[1] as string;
  // Python's `.` stops only at `\n` (JavaScript's also at `\r`, U+2028 and U+2029).
  const again = new RegExp(String.raw`[^\n]*[aA]nswer:\s*([${range}])`).exec(response);
  if (again) return again[1] as string;
  const alone = [...response.matchAll(new RegExp(`(?<!${WORD})[${range}](?!${WORD})`, 'gu'))];
  return alone.at(-1)?.[0] ?? null;
}

/**
 * The code of a HumanEval response: the body of its first ```python (or ```py, ```python3) block,
 * else of its first fenced block of any language, else the whole response (a bare completion).
 */
export function extractCode(response: string): string {
  const fence = (lang: string) =>
    new RegExp(String.raw`\`\`\`[ \t]*${lang}[ \t]*\r?\n([\s\S]*?)\`\`\``, 'i').exec(response)?.[1];
  return fence('(?:python3?|py)') ?? fence(String.raw`[\w+-]*`) ?? response;
}

/**
 * The program HumanEval runs for a completion, as the official `check_correctness` builds it
 * (`prompt + completion + "\n" + test + "\n" + "check(entry_point)"`). A chat model usually replies
 * with the whole function rather than its body: when the code defines `entry_point` itself it follows
 * the prompt on a line of its own (the prompt's helpers and imports stay; the later definition wins),
 * otherwise it continues the prompt as the original completions did.
 */
export function humanEvalProgram(
  task: { prompt: string; test: string; entry_point: string },
  code: string,
): string {
  const defines = new RegExp(String.raw`^[ \t]*(?:async[ \t]+)?def[ \t]+${task.entry_point}[ \t]*\(`, 'm');
  const solution = defines.test(code) ? `${task.prompt}\n${code}` : `${task.prompt}${code}`;
  return `${solution}\n\n${task.test}\n\ncheck(${task.entry_point})\n`;
}
