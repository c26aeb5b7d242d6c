import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import type { ChangedFile } from '../types/permission-events.js';
import { approvalQuestion } from './approval-prompt.js';
import { createReviewPrompt, fileDiffText } from './review-prompt.js';
import { waitUntil } from '../../test/support/wait.js';

let seq = 0;
const ev = (input: RunEventInput): RunEvent => ({ ...input, runId: 'r', seq: seq++, ts: 0 }) as RunEvent;

const file = (path: string, lines = '-old\n+new'): ChangedFile => ({
  path,
  status: 'modified',
  binary: false,
  additions: 1,
  deletions: 1,
  hunks: [{ header: '@@ -1 +1 @@', lines }],
});

const proposed = (files: ChangedFile[]) =>
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

describe('the review prompt', () => {
  it('shows each file hunk by hunk and asks about it: yes, no, then all from here', async () => {
    const answers: unknown[] = [];
    const term = terminal();
    const prompt = createReviewPrompt(
      { respondToReview: (id, files, by) => (answers.push([id, files, by]), true) },
      term,
    );
    prompt.handle(proposed([file('a.ts'), file('b.ts'), file('c.ts'), file('d.ts')]));
    await waitUntil(() => term.written().includes('Apply a.ts?'));
    expect(term.written()).toContain('Changes to /home/me/project from a (branch massgen/r/a): 4 files');
    expect(term.written()).toContain('── a.ts (modified, +1 −1) ──\n@@ -1 +1 @@\n-old\n+new');
    term.input.write('y\n');
    await waitUntil(() => term.written().includes('Apply b.ts?'));
    term.input.write('n\n');
    await waitUntil(() => term.written().includes('Apply c.ts?'));
    term.input.write('a\n');
    await waitUntil(() => answers.length === 1);
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
    await waitUntil(() => term.written().includes('Apply a.ts?'));
    expect(term.written()).not.toContain('\u001b[2J');
    term.input.write('q\n');
    await waitUntil(() => answers.length === 1);
    expect(answers[0]).toEqual(['changes-1', [], 'terminal']);
    expect(fileDiffText({ ...file('x.bin'), binary: true, hunks: [] })).toBe(
      '── x.bin (modified, binary) ──',
    );
  });
});

describe('the review prompt and the kinds of change', () => {
  const link = (path: string, target: string, pickOnly?: string): ChangedFile => ({
    path,
    status: 'added',
    before: null,
    after: 'symlink',
    linkTarget: target,
    ...(pickOnly ? { pickOnly } : {}),
    binary: false,
    additions: 1,
    deletions: 0,
    hunks: [{ header: '@@ -0,0 +1 @@', lines: `+${target}` }],
  });

  it('says what each change is, warns of a link out of the folder, and "all" leaves that link out', async () => {
    const answers: unknown[] = [];
    const term = terminal();
    const prompt = createReviewPrompt(
      { respondToReview: (id, files, by) => (answers.push([id, files, by]), true) },
      term,
    );
    const outside = 'a symbolic link to /etc/passwd, outside the folder';
    prompt.handle(
      proposed([
        { ...file('docs'), status: 'type-changed', before: 'folder', after: 'symlink', linkTarget: '/tmp' },
        link('passwd', '/etc/passwd', outside),
        link('ok', 'docs/guide.md'),
        { ...file('new.md'), status: 'renamed', from: 'old.md', before: 'file', after: 'file' },
      ]),
    );
    await waitUntil(() => term.written().includes('Apply docs?'));
    expect(term.written()).toContain('── docs (type changed: folder → symbolic link → /tmp, +1 −1) ──');
    term.input.write('n\n');
    await waitUntil(() => term.written().includes('Apply passwd?'));
    expect(term.written()).toContain(
      '── passwd (added: symbolic link → /etc/passwd, +1 −0) ──\n!! a symbolic link to /etc/passwd, outside the folder: applied only when picked by name, never by "all"',
    );
    term.input.write('a\n');
    await waitUntil(() => answers.length === 1);
    expect(answers[0]).toEqual(['changes-1', ['ok', 'new.md'], 'terminal']);
    expect(fileDiffText({ ...file('new.md'), status: 'renamed', from: 'old.md' })).toMatch(
      /^── new\.md \(renamed from old\.md, \+1 −1\) ──/,
    );
    prompt.close();

    const picked: unknown[] = [];
    const again = terminal();
    const second = createReviewPrompt(
      { respondToReview: (id, files, by) => (picked.push([id, files, by]), true) },
      again,
    );
    second.handle(proposed([link('passwd', '/etc/passwd', outside)]));
    await waitUntil(() => again.written().includes('Apply passwd?'));
    again.input.write('y\n');
    await waitUntil(() => picked.length === 1);
    expect(picked[0]).toEqual(['changes-1', ['passwd'], 'terminal']);
    second.close();
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
