import { describe, expect, it } from 'vitest';
import type { RunEventOf } from '../types/events.js';
import { changesLine } from './plain-display.js';

const base = { runId: 'r', seq: 1, ts: 0, agentId: 'a', reviewId: 'changes-1', contextPath: '/p' };
const counts = { binary: false, additions: 1, deletions: 0, hunks: [] };

describe('the plain view of the winner’s changes', () => {
  it('names every change that is more than a file edit, and what is to be picked by name', () => {
    const event: RunEventOf<'changes.proposed'> = {
      ...base,
      type: 'changes.proposed',
      isolation: 'worktree',
      branch: 'massgen/r/a',
      diffFile: null,
      awaitingReview: false,
      files: [
        { path: 'a.ts', status: 'modified', before: 'file', after: 'file', ...counts },
        {
          path: 'docs',
          status: 'type-changed',
          before: 'folder',
          after: 'symlink',
          linkTarget: '/tmp',
          pickOnly: 'a symbolic link to /tmp, outside the folder',
          ...counts,
        },
        { path: 'run.sh', status: 'mode-changed', before: 'file', after: 'executable', ...counts },
      ],
    };
    expect(changesLine(event)).toBe(
      [
        '── changes to /p from a: 3 files (+3 −0) ──',
        '   docs: type changed: folder → symbolic link → /tmp — a symbolic link to /tmp, outside the folder: applied only when picked by name, never by "all"',
        '   run.sh: mode changed: now executable',
      ].join('\n'),
    );
  });

  it('says where the checkout was kept when the changes did not all come back', () => {
    const event: RunEventOf<'changes.applied'> = {
      ...base,
      type: 'changes.applied',
      by: 'flag',
      applied: [],
      conflicts: [],
      failed: [{ path: 'docs/a.md', message: 'it has uncommitted changes in your checkout' }],
      skipped: ['docs'],
      kept: { agentId: 'a', path: '/p/.massgen/worktrees/r/a/p', branch: 'massgen/r/a', commands: [] },
    };
    expect(changesLine(event)).toBe(
      '── /p: nothing applied; docs/a.md not applied: it has uncommitted changes in your checkout; left out docs; kept /p/.massgen/worktrees/r/a/p (branch massgen/r/a) to apply by hand (chosen by: flag) ──',
    );
  });
});
