import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import { approvalQuestion } from './approval-prompt.js';
import { createReviewPrompt, fileDiffText } from './review-prompt.js';

let seq = 0;
const ev = (input: RunEventInput): RunEvent => ({ ...input, runId: 'r', seq: seq++, ts: 0 }) as RunEvent;

const file = (path: string, lines = '-old\n+new') => ({
  path,
  status: 'modified' as const,
  binary: false,
  additions: 1,
  deletions: 1,
  hunks: [{ header: '@@ -1 +1 @@', lines }],
});

const proposed = (files: ReturnType<typeof file>[]) =>
  ev({
    type: 'changes.proposed',
    agentId: 'a',
    reviewId: 'changes-1',
    contextPath: '/home/me/project',
    isolation: 'worktree',
    branch: 'massgen/r/a',
    files,
    diffFile: null,
    awaitingReview: true,
  });

function terminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { input, output, written: () => written };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe('the review prompt', () => {
  it('shows each file hunk by hunk and asks about it: yes, no, then all from here', async () => {
    const answers: unknown[] = [];
    const term = terminal();
    const prompt = createReviewPrompt(
      { respondToReview: (id, files, by) => (answers.push([id, files, by]), true) },
      term,
    );
    prompt.handle(proposed([file('a.ts'), file('b.ts'), file('c.ts'), file('d.ts')]));
    await until(() => term.written().includes('Apply a.ts?'));
    expect(term.written()).toContain('Changes to /home/me/project from a (branch massgen/r/a): 4 files');
    expect(term.written()).toContain('── a.ts (modified, +1 −1) ──\n@@ -1 +1 @@\n-old\n+new');
    term.input.write('y\n');
    await until(() => term.written().includes('Apply b.ts?'));
    term.input.write('n\n');
    await until(() => term.written().includes('Apply c.ts?'));
    term.input.write('a\n');
    await until(() => answers.length === 1);
    expect(answers[0]).toEqual(['changes-1', ['a.ts', 'c.ts', 'd.ts'], 'terminal']);
    prompt.close();
  });

  it('q applies none of the rest; what agents wrote is shown inert', async () => {
    const answers: unknown[] = [];
    const term = terminal();
    const prompt = createReviewPrompt(
      { respondToReview: (id, files, by) => (answers.push([id, files, by]), true) },
      term,
    );
    prompt.handle(proposed([file('a.ts', '+\u001b[2Jcleared'), file('b.ts')]));
    await until(() => term.written().includes('Apply a.ts?'));
    expect(term.written()).not.toContain('\u001b[2J');
    term.input.write('q\n');
    await until(() => answers.length === 1);
    expect(answers[0]).toEqual(['changes-1', [], 'terminal']);
    expect(fileDiffText({ ...file('x.bin'), binary: true, hunks: [] })).toBe(
      '── x.bin (modified, binary) ──',
    );
  });
});

describe('the approval question', () => {
  it('names the ask rule that holds the call', () => {
    expect(
      approvalQuestion({
        agentId: 'a',
        toolName: 'write_file',
        arguments: { path: 'x' },
        rule: { label: 'permissions[0]', index: 0, scope: 'team', action: 'ask', text: 'ask write_file' },
      }),
    ).toBe('Allow a to run write_file {"path":"x"} (permissions[0]: ask write_file)? [y/N] ');
  });
});
