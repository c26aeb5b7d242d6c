import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readDataset } from './dataset.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/eval', import.meta.url));

function dataset(text: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-eval-'));
  writeFileSync(path.join(dir, 'd.jsonl'), text);
  return dir;
}

describe('readDataset', () => {
  it('reads massgen, MMLU-style, GPQA-style and GSM8K-style lines', () => {
    const { items } = readDataset('public-formats.jsonl', { cwd: FIXTURES });
    expect(items.map((i) => [i.id, i.answer])).toEqual([
      ['mc1', 'B'],
      ['2', 'C'],
      ['gpqa-1', expect.stringMatching(/^[A-D]$/)],
      ['gsm-1', '12'],
    ]);
    expect(items[0]!.prompt).toBe(
      'Which planet is largest?\n\nA. Mars\nB. Jupiter\nC. Venus\nD. Earth\n\nAnswer with the letter of the correct option (A, B, C, D).',
    );
    const gpqa = items[2]!;
    expect(gpqa.choices?.[gpqa.answer.charCodeAt(0) - 65]).toBe('Newton');
    expect([...(gpqa.choices ?? [])].sort()).toEqual(['Joule', 'Newton', 'Pascal', 'Watt']);
    // The same order every time: reruns ask the same question.
    expect(readDataset('public-formats.jsonl', { cwd: FIXTURES }).items[2]!.prompt).toBe(gpqa.prompt);
    expect(readDataset('public-formats.jsonl', { cwd: FIXTURES, limit: 2 }).items).toHaveLength(2);
  });

  it('names the line of a malformed entry', () => {
    const cwd = dataset('{"id": "a", "question": "q", "answer": "1"}\n\n{"id": "b", "question": "q"}\n');
    expect(() => readDataset('d.jsonl', { cwd })).toThrow('d.jsonl:3: "answer" is missing');
    const bad = dataset('{"id": "a", "question": "q", "answer": "1"}\nnot json\n');
    expect(() => readDataset('d.jsonl', { cwd: bad })).toThrow(/^d\.jsonl:2: not valid JSON/);
    const dup = dataset(
      '{"id": "a", "question": "q", "answer": "1"}\n{"id": "a", "question": "r", "answer": "2"}\n',
    );
    expect(() => readDataset('d.jsonl', { cwd: dup })).toThrow(
      'd.jsonl:2: duplicate id "a" (first on line 1)',
    );
    const choice = dataset('{"id": "a", "question": "q", "choices": ["x", "y"], "answer": "z"}\n');
    expect(() => readDataset('d.jsonl', { cwd: choice })).toThrow(
      'd.jsonl:1: "answer": expected a letter A–B',
    );
  });
});
