import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Verdict } from '../scorers.js';
import { createCodeSandbox } from './code-sandbox.js';
import { extractCode, humanEvalProgram } from './extract.js';
import type { BenchmarkSpec } from './spec.js';

const HumanEvalRowSchema = z.looseObject({
  task_id: z.string().min(1).max(100),
  prompt: z.string().min(1),
  canonical_solution: z.string(),
  test: z.string().min(1),
  // It is written into the program and a pattern: a Python name and nothing else.
  entry_point: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, { error: 'expected a Python function name' }),
});
type HumanEvalRow = z.infer<typeof HumanEvalRowSchema>;

const TEMPLATE =
  'Complete the following Python function. Reply with the complete function, including any imports it needs, in a single ```python code block.\n\n```python\n{prompt}```';

/** HumanEval (Chen et al., 2021): 164 Python functions to complete, graded by running their tests. */
export const humanEval: BenchmarkSpec<HumanEvalRow> = {
  name: 'humaneval',
  title: 'HumanEval',
  dataset: 'openai/openai_humaneval',
  config: 'openai_humaneval',
  split: 'test',
  gated: false,
  rowSchema: HumanEvalRowSchema,
  template: TEMPLATE,
  scoring:
    "pass@1: the code of the first ```python block (else the first fenced block, else the whole response) completes the prompt — after it when it defines the entry point, else appended to it — and `test` + `check(entry_point)` run with python3 in massgen's OS sandbox (no network, machine read-only, time limit); right when it exits 0",
  question: (row) => ({
    prompt: TEMPLATE.replace('{prompt}', () => row.prompt),
    question: row.prompt,
    answer: row.task_id,
  }),
  scorer: async (rows, context) => {
    const sandbox = createCodeSandbox(context.env, { timeoutMs: context.codeTimeoutMs });
    // The same code for the same task is run once: the team's answer is often an agent's too.
    const runs = new Map<string, Promise<Verdict>>();
    const key = (answer: string | null) => {
      if (answer === null) return null;
      const code = extractCode(answer).replace(/\s+/g, ' ').trim();
      return code === '' ? null : code;
    };
    return {
      name: 'humaneval',
      key: (answer) => key(answer),
      score: async (answer, item) => {
        const row = rows.get(item.id);
        if (answer === null || row === undefined) return { correct: false, extracted: null };
        const code = extractCode(answer);
        const program = humanEvalProgram(row, code);
        const id = createHash('sha256').update(`${item.id}\u0000${program}`).digest('hex');
        let verdict = runs.get(id);
        if (!verdict) {
          verdict = sandbox
            .run(program, context.signal)
            .then((run) => ({ correct: run.passed, extracted: code, reason: run.outcome }));
          runs.set(id, verdict);
        }
        return verdict;
      },
    };
  },
};
