import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { RunEventInput, RunEventOf } from '../types/events.js';
import type { Reviewer, ReviewRequest } from './context-isolation.js';
import { gitAvailable } from './git.js';

/** Test helpers for isolated context paths on real git (excluded from the build). */

export const noGit = !gitAvailable();
export const skipped = noGit ? ' (skipped: git is not installed)' : '';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder (real path), removed after the test. */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** The test's own git, as the user would run it. */
export const run = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).trim();

export function write(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

export const read = (root: string, rel: string) => readFileSync(path.join(root, rel), 'utf8');

export const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** A repository with a commit: `src/app.ts`, `docs/guide.md`, `notes.txt`, `.gitignore`. */
export function userRepo(): string {
  const repo = tempDir('massgen-repo-');
  run(repo, 'init', '-q', '-b', 'main');
  run(repo, 'config', 'user.email', 'me@example.com');
  run(repo, 'config', 'user.name', 'Me');
  write(repo, {
    'src/app.ts': lines('export const a = 1;', 'export const b = 2;', 'export const c = 3;'),
    'docs/guide.md': lines('# Guide', '', 'Step one.', '', 'Step two.'),
    'notes.txt': lines('my notes'),
    '.gitignore': lines('ignored/'),
  });
  run(repo, 'add', '-A');
  run(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

/** A reviewer that records what it was asked and answers with `files`. */
export function choosing(files: 'all' | 'none' | string[]): Reviewer & { asked: ReviewRequest[] } {
  const asked: ReviewRequest[] = [];
  return {
    asked,
    awaitsReview: true,
    review: async (request) => {
      asked.push(request);
      return { files, by: 'caller' };
    },
  };
}

/** Collects the events a conclusion emits. */
export function collector() {
  const events: RunEventInput[] = [];
  return {
    events,
    emit: (event: RunEventInput) => events.push(event),
    proposed: () =>
      events.filter(
        (e): e is Omit<RunEventOf<'changes.proposed'>, 'runId' | 'seq' | 'ts'> =>
          e.type === 'changes.proposed',
      ),
    applied: () =>
      events.filter(
        (e): e is Omit<RunEventOf<'changes.applied'>, 'runId' | 'seq' | 'ts'> => e.type === 'changes.applied',
      ),
  };
}
