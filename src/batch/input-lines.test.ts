import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { readBatchInput } from './input-lines.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function inputFile(lines: string[]): { cwd: string; file: string } {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'massgen-batch-input-'));
  dirs.push(cwd);
  writeFileSync(path.join(cwd, 'q.jsonl'), `${lines.join('\n')}\n`);
  return { cwd, file: 'q.jsonl' };
}

describe('readBatchInput', () => {
  it('reads questions with their line numbers; blank lines and extra keys are fine', () => {
    const { cwd, file } = inputFile([
      JSON.stringify({ id: 'a', question: 'First?' }),
      '',
      JSON.stringify({ id: 7, question: 'Second?', expected: 'kept out of the run' }),
      JSON.stringify({ id: 'c', question: 'Third?', attachments: ['notes.txt'], config: 'other.yaml' }),
      JSON.stringify({ id: 'd', question: 'Fourth?', config: '@examples/basic/three_agents' }),
    ]);
    const input = readBatchInput(file, { cwd });
    expect(input.skipped).toEqual([]);
    expect(input.items.map((item) => [item.id, item.line])).toEqual([
      ['a', 1],
      ['7', 3],
      ['c', 4],
      ['d', 5],
    ]);
    expect(input.items[2]).toMatchObject({
      attachments: [path.join(cwd, 'notes.txt')],
      config: path.join(cwd, 'other.yaml'),
    });
    expect(input.items[3]?.config).toBe('@examples/basic/three_agents');
  });

  it('skips malformed lines, each reported with its line number', () => {
    const { cwd, file } = inputFile([
      JSON.stringify({ id: 'a', question: 'Fine?' }),
      '{"id": "b", "question": ',
      JSON.stringify({ id: 'c' }),
      JSON.stringify({ id: '', question: 'Empty id?' }),
      '["not", "an", "object"]',
      JSON.stringify({ id: 'f', question: 'Also fine?' }),
    ]);
    const input = readBatchInput(file, { cwd });
    expect(input.items.map((item) => item.id)).toEqual(['a', 'f']);
    expect(input.skipped.map((p) => p.line)).toEqual([2, 3, 4, 5]);
    expect(input.skipped[0]?.message).toMatch(/^not valid JSON/);
    expect(input.skipped[1]?.message).toBe('"question" is missing');
    expect(input.skipped[2]?.message).toMatch(/^"id": /);
    expect(input.skipped[3]?.message).toMatch(/expected a JSON object/);
  });

  it('with strict, the first malformed line is an error naming the file and line', () => {
    const { cwd, file } = inputFile([JSON.stringify({ id: 'a', question: 'Fine?' }), 'oops']);
    expect(() => readBatchInput(file, { cwd, strict: true })).toThrow(/^q\.jsonl:2: not valid JSON/);
  });

  it('refuses duplicate ids, naming both lines', () => {
    const { cwd, file } = inputFile([
      JSON.stringify({ id: 'a', question: 'One?' }),
      JSON.stringify({ id: 'b', question: 'Two?' }),
      JSON.stringify({ id: 'a', question: 'Three?' }),
    ]);
    expect(() => readBatchInput(file, { cwd })).toThrow(ConfigError);
    expect(() => readBatchInput(file, { cwd })).toThrow(/^q\.jsonl:3: duplicate id "a" \(first on line 1\)$/);
    // A number and its string are the same id.
    const other = inputFile([
      JSON.stringify({ id: 1, question: 'One?' }),
      JSON.stringify({ id: '1', question: 'Two?' }),
    ]);
    expect(() => readBatchInput(other.file, { cwd: other.cwd })).toThrow(
      /duplicate id "1" \(first on line 1\)/,
    );
  });

  it('a missing input file is one clear error', () => {
    const { cwd } = inputFile([]);
    expect(() => readBatchInput('nope.jsonl', { cwd })).toThrow(
      /cannot read the batch input .*nope\.jsonl: file not found/,
    );
  });
});
