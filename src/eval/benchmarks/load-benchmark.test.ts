/**
 * Each benchmark end to end below the CLI: rows in the real shape from the local datasets server
 * become the stated prompt and reference, hand-checked responses are graded by the benchmark's rule,
 * the rows chosen and their record are the same for everyone with the same seed, and a row in the
 * wrong shape is named by its index and key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeEnv,
  FAKE_SHA,
  gpqaRows,
  gsm8kRows,
  humanEvalRows,
  mmluProRows,
  startFakeDatasetsServer,
  type FakeDatasetsServer,
} from './fake-datasets-server.test-support.js';
import { gpqaOrder } from './gpqa.js';
import { canonicalJson, loadBenchmark, selectRows } from './load-benchmark.js';

let server: FakeDatasetsServer;
const dirs: string[] = [];
const env = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-'));
  dirs.push(dir);
  return fakeEnv(server, dir);
};
beforeAll(async () => {
  server = await startFakeDatasetsServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.respond(null);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('selection and record', () => {
  it('a seeded sample: the same rows for the same seed, ascending, and a larger limit keeps a smaller one', () => {
    const a = selectRows(1319, 20, 0);
    expect(a).toEqual(selectRows(1319, 20, 0));
    expect(a).toHaveLength(20);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(selectRows(1319, 20, 1)).not.toEqual(a);
    expect(selectRows(1319, 50, 0)).toEqual(expect.arrayContaining(a));
    expect(selectRows(5, undefined, 3)).toEqual([0, 1, 2, 3, 4]);
    expect(selectRows(5, 9, 3)).toEqual([0, 1, 2, 3, 4]);
  });
  it('the rows hash does not depend on the order of keys', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 'x' }] })).toBe('{"a":[{"c":"x","d":2}],"b":1}');
    expect(canonicalJson({ a: [{ c: 'x', d: 2 }], b: 1 })).toBe(
      canonicalJson({ b: 1, a: [{ d: 2, c: 'x' }] }),
    );
  });
  it("GPQA's options: a fixed order per seed and row, the reference pointing at the correct text", () => {
    const [row] = gpqaRows(1);
    const orders = [0, 1, 2, 3, 4, 5].map((seed) => gpqaOrder(row!, 0, seed));
    expect(gpqaOrder(row!, 0, 3)).toEqual(orders[3]);
    for (const { choices, answer } of orders) {
      expect([...choices].sort()).toEqual(['right 0', 'wrong 0.1', 'wrong 0.2', 'wrong 0.3']);
      expect(choices[answer.charCodeAt(0) - 65]).toBe('right 0');
    }
    expect(new Set(orders.map((o) => o.choices.join('|'))).size).toBeGreaterThan(1);
  });
});

describe('loadBenchmark', () => {
  it('GSM8K: the stated prompt, the number after #### as reference, the flexible extract graded numerically', async () => {
    server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(30));
    const b = await loadBenchmark({ name: 'gsm8k', limit: 20, seed: 7 }, { env: env() });
    expect(b.items).toHaveLength(20);
    const rows = selectRows(30, 20, 7);
    expect(b.record).toMatchObject({
      benchmark: 'gsm8k',
      dataset: 'openai/gsm8k',
      config: 'main',
      split: 'test',
      revision: FAKE_SHA,
      numRowsTotal: 30,
      seed: 7,
      limit: 20,
      rows,
    });
    expect(b.record.rowsSha256).toMatch(/^[0-9a-f]{64}$/);
    const first = b.items[0]!;
    expect(first.id).toBe(`gsm8k-${rows[0]}`);
    expect(first.prompt).toBe(
      `Solve the following math problem step by step. On the last line, write "####" followed by the final answer as a number only.\n\nQuestion: [gsm8k ${rows[0]}] Natalia sold clips to ${rows[0]! + 2} friends, 1,000 clips each. How many clips did she sell?`,
    );
    // Row 3 (of every row): "#### 5,000" → 5000.
    const all = await loadBenchmark({ name: 'gsm8k' }, { env: env() });
    const row3 = all.items[3]!;
    expect(row3.answer).toBe('5000');
    const grade = (text: string) => all.scorer.score(text, row3);
    expect(await grade('She sold 5 lots of 1,000, so $5,000.00 worth... no: 5,000 clips')).toMatchObject({
      correct: true,
      extracted: '5000',
    });
    expect(await grade('#### 5000\nDone in 2 steps.')).toMatchObject({ correct: false, extracted: '2' });
    expect(await grade('no idea')).toEqual({ correct: false, extracted: null });
    // Same seed, another user: the same rows and hash.
    const again = await loadBenchmark({ name: 'gsm8k', limit: 20, seed: 7 }, { env: env() });
    expect(again.record.rowsSha256).toBe(b.record.rowsSha256);
    expect(
      (await loadBenchmark({ name: 'gsm8k', limit: 20, seed: 8 }, { env: env() })).record.rowsSha256,
    ).not.toBe(b.record.rowsSha256);
  });

  it('MMLU-Pro: ten lettered options, the official extraction', async () => {
    server.setSplit('TIGER-Lab/MMLU-Pro', 'default', 'test', mmluProRows(4));
    const b = await loadBenchmark({ name: 'mmlu-pro' }, { env: env() });
    const item = b.items[1]!; // answer_index 3 → D
    expect(item.answer).toBe('D');
    expect(item.prompt).toBe(
      [
        'The following are multiple choice questions (with answers) about business. Think step by step and then output the answer in the format of "The answer is (X)" at the end.',
        '',
        'Question: [mmlu-pro 1] Which option is the right one?',
        `Options: ${Array.from({ length: 10 }, (_, k) => `${String.fromCharCode(65 + k)}. ${k === 3 ? 'right 1' : `wrong 1.${k}`}`).join('\n')}`,
        "Answer: Let's think step by step.",
      ].join('\n'),
    );
    expect(await b.scorer.score('Options A and J are out. The answer is (D).', item)).toEqual({
      correct: true,
      extracted: 'D',
    });
    expect(await b.scorer.score('answer: C', item)).toEqual({ correct: false, extracted: 'C' });
    expect(b.scorer.key('The answer is (D)', item)).toBe(b.scorer.key('Answer: D', item));
  });

  it('MMLU-Pro: "N/A" padding is dropped, the letters follow what is shown', async () => {
    const [row] = mmluProRows(1);
    const padded = { ...row!, options: ['a', 'b', 'c', 'right', 'N/A', 'N/A'], answer: 'D', answer_index: 3 };
    server.setSplit('TIGER-Lab/MMLU-Pro', 'default', 'test', [padded]);
    const [item] = (await loadBenchmark({ name: 'mmlu-pro' }, { env: env() })).items;
    expect(item!.choices).toEqual(['a', 'b', 'c', 'right']);
    expect(item!.prompt).not.toContain('N/A');
    expect(item!.answer).toBe('D');
  });

  it('GPQA-Diamond: options shuffled by the seed, "The correct answer is (X)" graded', async () => {
    server.setSplit('Idavidrein/gpqa', 'gpqa_diamond', 'train', gpqaRows(5));
    const e = { ...env(), HF_TOKEN: 'hf_test' };
    const b = await loadBenchmark({ name: 'gpqa-diamond', seed: 3 }, { env: e });
    for (const [i, item] of b.items.entries()) {
      const { choices, answer } = gpqaOrder(gpqaRows(5)[i]!, i, 3);
      expect(item.choices).toEqual(choices);
      expect(item.answer).toBe(answer);
      expect(item.prompt).toContain(`(${answer}) right ${i}\n`);
      expect(
        item.prompt.startsWith(
          `What is the correct answer to this question: [gpqa ${i}] Which particle is right?\n\nChoices:\n(A) `,
        ),
      ).toBe(true);
      expect(await b.scorer.score(`Thinking... The correct answer is (${answer})`, item)).toMatchObject({
        correct: true,
      });
    }
    const wrong = b.items[0]!.answer === 'A' ? 'B' : 'A';
    expect(await b.scorer.score(`The correct answer is (${wrong})`, b.items[0]!)).toMatchObject({
      correct: false,
    });
  });

  it('a row in the wrong shape is named by its index and key', async () => {
    const rows = gsm8kRows(3);
    rows[1] = { question: 'q', answer: 'no marker' };
    server.setSplit('openai/gsm8k', 'main', 'test', rows);
    await expect(loadBenchmark({ name: 'gsm8k' }, { env: env() })).rejects.toThrow(
      'GSM8K row 1 (openai/gsm8k main/test): "answer": expected a solution ending "#### <number>"',
    );
    const mmlu = mmluProRows(1);
    mmlu[0]!.answer = 'B';
    server.setSplit('TIGER-Lab/MMLU-Pro', 'default', 'test', mmlu);
    await expect(loadBenchmark({ name: 'mmlu-pro' }, { env: env() })).rejects.toThrow(
      /MMLU-Pro row 0 .*"answer_index": "answer" and "answer_index" disagree/,
    );
    // HumanEval's entry point is written into the program: a name, nothing else, before any code runs.
    const tasks = humanEvalRows(1);
    tasks[0]!.entry_point = 'add_0); __import__("os").system("touch /tmp/pwned"); (print';
    server.setSplit('openai/openai_humaneval', 'openai_humaneval', 'test', tasks);
    await expect(loadBenchmark({ name: 'humaneval' }, { env: env() })).rejects.toThrow(
      'HumanEval row 0 (openai/openai_humaneval openai_humaneval/test): "entry_point": expected a Python function name',
    );
  });

  it('row text that looks like a placeholder or a replacement pattern is sent as it is', async () => {
    const rows = gsm8kRows(1);
    rows[0]!.question = "What is $& and $' and {question}?";
    server.setSplit('openai/gsm8k', 'main', 'test', rows);
    const [item] = (await loadBenchmark({ name: 'gsm8k' }, { env: env() })).items;
    expect(item!.prompt.endsWith("Question: What is $& and $' and {question}?")).toBe(true);
  });
});
