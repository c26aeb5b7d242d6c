/**
 * `write_mode: worktree` on real git, in temp folders: each agent edits its own checkout on its own
 * branch, the winner's changes are proposed file by file and applied with `git apply --3way` — the
 * user's uncommitted edits elsewhere survive, a conflicting edit is reported, not overwritten — and no
 * worktree, branch or folder is left behind; a folder outside git works the same way through a copy.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ContextIsolation } from './context-isolation.js';
import {
  choosing,
  collector,
  lines,
  noGit,
  read,
  run,
  skipped,
  tempDir,
  userRepo,
  write,
} from './isolation.test-support.js';

describe.skipIf(noGit)(`write_mode: worktree in a git repository${skipped}`, () => {
  it('two agents edit their own worktrees; the winner is reviewed, partly applied, merged three-way, and nothing is left behind', async () => {
    const repo = userRepo();
    const massgenDir = path.join(repo, '.massgen');
    // The user's uncommitted edit, made before the run: the agents see it, and it survives.
    write(repo, { 'notes.txt': lines('my notes', 'uncommitted line') });
    const head = run(repo, 'rev-parse', 'HEAD');

    const isolation = await ContextIsolation.create({
      massgenDir,
      runKey: 'r1',
      specs: [{ path: repo, mode: 'worktree', protectedPaths: [] }],
      agentIds: ['a', 'b'],
    });
    const [a] = isolation.viewsOf('a');
    const [b] = isolation.viewsOf('b');
    expect(a?.kind).toBe('worktree');
    expect(a?.branch).toBe('massgen/r1/a');
    expect(b?.branch).toBe('massgen/r1/b');
    expect(a?.view).toBe(path.join(massgenDir, 'worktrees', 'r1', 'a', path.basename(repo)));
    expect(
      run(repo, 'branch', '--list', 'massgen/*')
        .split('\n')
        .map((l) => l.trim()),
    ).toEqual(['+ massgen/r1/a', '+ massgen/r1/b']);
    expect(read(a!.view, 'notes.txt')).toBe(lines('my notes', 'uncommitted line'));
    expect(existsSync(path.join(a!.view, '.massgen'))).toBe(false);

    // Each agent edits its own checkout; the user's folder does not move.
    write(a!.view, {
      'src/app.ts': lines('export const a = 1;', 'export const b = 20;', 'export const c = 3;'),
      'src/new.ts': lines('export const fresh = true;'),
      'docs/guide.md': lines('# Guide', '', 'Step one, by agent a.', '', 'Step two.'),
    });
    write(b!.view, {
      'src/app.ts': lines('export const a = 100;', 'export const b = 2;', 'export const c = 3;'),
    });
    expect(read(repo, 'src/app.ts')).toBe(
      lines('export const a = 1;', 'export const b = 2;', 'export const c = 3;'),
    );

    // An answer's snapshot carries the diff of its checkout for the other agents.
    const snapshot = tempDir('massgen-snapshot-');
    await isolation.writeChanges('a', 'agent1.1', snapshot);
    const shown = read(snapshot, path.join('massgen-changes', `${path.basename(repo)}.diff`));
    expect(shown).toContain('+++ b/src/new.ts');
    expect(run(repo, 'log', '--format=%s', 'massgen/r1/a')).toContain('answer agent1.1');

    // Meanwhile the user edits the same line of the guide (a conflict) and another file (untouched by a).
    write(repo, {
      'docs/guide.md': lines('# Guide', '', 'Step one, by the user.', '', 'Step two.'),
      'notes.txt': lines('my notes', 'uncommitted line', 'and one more'),
    });

    const out = collector();
    const reviewer = choosing(['src/app.ts', 'docs/guide.md']);
    await isolation.conclude(
      { winnerId: 'a', emit: out.emit, signal: new AbortController().signal },
      reviewer,
      null,
    );

    const [proposed] = out.proposed();
    expect(proposed).toMatchObject({
      agentId: 'a',
      reviewId: 'changes-1',
      contextPath: repo,
      isolation: 'worktree',
    });
    expect(proposed?.branch).toBe('massgen/r1/a');
    expect(proposed?.files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['docs/guide.md', 'modified', 1, 1],
      ['src/app.ts', 'modified', 1, 1],
      ['src/new.ts', 'added', 1, 0],
    ]);
    const hunk = proposed?.files.find((f) => f.path === 'src/app.ts')?.hunks[0];
    expect(hunk?.header).toMatch(/^@@ -1,3 \+1,3 @@/);
    expect(hunk?.lines).toContain('-export const b = 2;\n+export const b = 20;');
    expect(reviewer.asked[0]?.files).toEqual(['docs/guide.md', 'src/app.ts', 'src/new.ts']);

    expect(out.applied()[0]).toMatchObject({
      by: 'caller',
      applied: ['src/app.ts'],
      conflicts: ['docs/guide.md'],
      failed: [],
      skipped: ['src/new.ts'],
    });
    expect(read(repo, 'src/app.ts')).toBe(
      lines('export const a = 1;', 'export const b = 20;', 'export const c = 3;'),
    );
    expect(existsSync(path.join(repo, 'src/new.ts'))).toBe(false);
    const guide = read(repo, 'docs/guide.md');
    expect(guide).toContain('<<<<<<<');
    expect(guide).toContain('Step one, by the user.');
    expect(guide).toContain('Step one, by agent a.');
    expect(read(repo, 'notes.txt')).toBe(lines('my notes', 'uncommitted line', 'and one more'));
    // The user's checkout: same commit, same branch, nothing staged by massgen.
    expect(run(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(run(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(run(repo, 'diff', '--cached', '--name-only')).toBe('');
    expect(isolation.outcomes).toHaveLength(1);

    await isolation.dispose();
    expect(run(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('');
    expect(existsSync(path.join(massgenDir, 'worktrees', 'r1'))).toBe(false);
  });

  it('isolates a folder inside the repository, leaves protected paths out, and proposes nothing when nothing changed', async () => {
    const repo = userRepo();
    write(repo, { 'site/index.html': lines('<h1>Hi</h1>'), 'site/LICENSE': lines('MIT') });
    run(repo, 'add', '-A');
    run(repo, 'commit', '-q', '-m', 'site');
    const site = path.join(repo, 'site');
    const isolation = await ContextIsolation.create({
      massgenDir: path.join(repo, '.massgen'),
      runKey: 'r2',
      specs: [{ path: site, mode: 'worktree', protectedPaths: [path.join(site, 'LICENSE')] }],
      agentIds: ['a', 'b'],
    });
    const [view] = isolation.viewsOf('a');
    // The checkout holds the whole repository; the agent works in the folder's place in it.
    expect(view?.view).toBe(path.join(repo, '.massgen', 'worktrees', 'r2', 'a', 'site', 'site'));
    expect(view?.protectedPaths).toEqual([
      path.join(view!.view, 'LICENSE'),
      path.join(path.dirname(view!.view), '.git'),
    ]);
    write(view!.view, { 'index.html': lines('<h1>Hello</h1>'), LICENSE: lines('stolen') });
    // Outside the isolated folder: never proposed.
    write(path.dirname(view!.view), { 'notes.txt': lines('elsewhere') });

    const out = collector();
    await isolation.conclude(
      { winnerId: 'a', emit: out.emit, signal: new AbortController().signal },
      choosing('all'),
      null,
    );
    expect(out.proposed()[0]?.files.map((f) => f.path)).toEqual(['index.html']);
    expect(read(site, 'index.html')).toBe(lines('<h1>Hello</h1>'));
    expect(read(site, 'LICENSE')).toBe(lines('MIT'));
    expect(read(repo, 'notes.txt')).toBe(lines('my notes'));

    const quiet = collector();
    await isolation.conclude(
      { winnerId: 'b', emit: quiet.emit, signal: new AbortController().signal },
      choosing('all'),
      null,
    );
    expect(quiet.events).toEqual([]);
    await isolation.dispose();
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('');
  });

  it('keeps both versions of a file the user created meanwhile, holds everything back when one the user deleted is chosen, and keeps everything with keep', async () => {
    const repo = userRepo();
    const isolation = await ContextIsolation.create({
      massgenDir: path.join(repo, '.massgen'),
      runKey: 'r3',
      specs: [{ path: repo, mode: 'worktree', protectedPaths: [] }],
      agentIds: ['a'],
      keep: true,
    });
    const [view] = isolation.viewsOf('a');
    write(view!.view, { 'new.txt': lines('from the agent'), 'notes.txt': lines('my notes', 'by the agent') });
    write(repo, { 'new.txt': lines('from the user') });
    unlinkSync(path.join(repo, 'notes.txt'));
    const diffDir = tempDir('massgen-logs-');
    const signal = new AbortController().signal;
    // Both changes chosen: the file the user deleted cannot be changed, so neither is applied.
    const both = collector();
    await isolation.conclude({ winnerId: 'a', emit: both.emit, signal }, choosing('all'), diffDir);
    expect(both.applied()[0]).toMatchObject({
      applied: [],
      conflicts: [],
      failed: [
        { path: 'notes.txt', message: 'it was deleted from your folder since the run began; not recreated' },
        { path: 'new.txt', message: expect.stringMatching(/^held back: another chosen change could not/) },
      ],
    });
    expect(read(repo, 'new.txt')).toBe(lines('from the user'));
    expect(existsSync(path.join(repo, 'notes.txt'))).toBe(false);
    expect(read(diffDir, path.join('changes', 'changes-1.diff'))).toContain('+from the agent');
    expect(both.proposed()[0]?.diffFile).toBe(path.join(diffDir, 'changes', 'changes-1.diff'));

    // The new file alone: merged against nothing, both versions kept and marked.
    const one = collector();
    await isolation.conclude({ winnerId: 'a', emit: one.emit, signal }, choosing(['new.txt']), null);
    expect(one.applied()[0]).toMatchObject({ applied: [], conflicts: ['new.txt'], failed: [] });
    expect(read(repo, 'new.txt')).toMatch(
      /<<<<<<< ours\nfrom the user\n=======\nfrom the agent\n>>>>>>> theirs/,
    );

    await isolation.dispose();
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('+ massgen/r3/a');
    expect(isolation.checkouts().map((c) => c.branch)).toEqual(['massgen/r3/a']);
    // The test's own clean-up of what was kept.
    run(repo, 'worktree', 'remove', '--force', isolation.checkouts()[0]!.root);
    run(repo, 'branch', '-D', 'massgen/r3/a');
  });
});

describe.skipIf(noGit)(`a checkout whose .git link was rewritten${skipped}`, () => {
  it("still commits to the agent's branch, never to the user's", async () => {
    const repo = userRepo();
    const head = run(repo, 'rev-parse', 'HEAD');
    const isolation = await ContextIsolation.create({
      massgenDir: path.join(repo, '.massgen'),
      runKey: 'r6',
      specs: [{ path: repo, mode: 'worktree', protectedPaths: [] }],
      agentIds: ['a'],
    });
    const [view] = isolation.viewsOf('a');
    expect(view?.protectedPaths).toEqual([path.join(view!.view, '.git')]);
    // What the path checks refuse, done behind their back: the link now points at the user's repository.
    writeFileSync(path.join(view!.view, '.git'), `gitdir: ${path.join(repo, '.git')}\n`);
    write(view!.view, { 'notes.txt': lines('agent notes') });
    await isolation.commit('a', 'answer agent1.1');
    expect(run(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(run(repo, 'log', '--format=%s', '-1', 'massgen/r6/a')).toBe('answer agent1.1');
    await isolation.dispose();
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('');
  });
});

describe.skipIf(noGit)(`write_mode: worktree outside git (a copy)${skipped}`, () => {
  it('works the same way on a plain folder: copies, review, three-way apply, conflicts, clean-up', async () => {
    const folder = tempDir('massgen-plain-');
    const project = tempDir('massgen-project-');
    write(folder, {
      'a.txt': lines('one', 'two', 'three'),
      'b.txt': lines('bee'),
      'c.txt': lines('sea'),
    });
    const isolation = await ContextIsolation.create({
      massgenDir: path.join(project, '.massgen'),
      runKey: 'r4',
      specs: [{ path: folder, mode: 'worktree', protectedPaths: [] }],
      agentIds: ['a', 'b'],
    });
    const [a] = isolation.viewsOf('a');
    expect(a?.kind).toBe('copy');
    expect(read(a!.view, 'a.txt')).toBe(lines('one', 'two', 'three'));
    write(a!.view, {
      'a.txt': lines('one', 'TWO', 'three'),
      'b.txt': lines('bee by a'),
      'd.txt': lines('new'),
    });
    unlinkSync(path.join(a!.view, 'c.txt'));
    write(isolation.viewsOf('b')[0]!.view, { 'a.txt': lines('b was here') });
    // The user changes b.txt meanwhile: a conflict with a's edit.
    write(folder, { 'b.txt': lines('bee by the user') });

    const out = collector();
    await isolation.conclude(
      { winnerId: 'a', emit: out.emit, signal: new AbortController().signal },
      choosing(['a.txt', 'b.txt', 'c.txt']),
      null,
    );
    expect(out.proposed()[0]).toMatchObject({ isolation: 'copy', branch: null });
    expect(out.proposed()[0]?.files.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'modified'],
      ['b.txt', 'modified'],
      ['c.txt', 'deleted'],
      ['d.txt', 'added'],
    ]);
    expect(out.applied()[0]).toMatchObject({
      applied: ['a.txt', 'c.txt'],
      conflicts: ['b.txt'],
      skipped: ['d.txt'],
    });
    expect(read(folder, 'a.txt')).toBe(lines('one', 'TWO', 'three'));
    expect(existsSync(path.join(folder, 'c.txt'))).toBe(false);
    expect(existsSync(path.join(folder, 'd.txt'))).toBe(false);
    expect(read(folder, 'b.txt')).toContain('bee by the user');
    expect(existsSync(path.join(folder, '.git'))).toBe(false);

    await isolation.dispose();
    expect(existsSync(path.join(project, '.massgen', 'worktrees', 'r4'))).toBe(false);
  });
});

describe.skipIf(noGit)(`clean-up when the process dies${skipped}`, () => {
  it('removes the worktrees and branches from the exit handler of a process that exits at once', () => {
    const repo = userRepo();
    const here = path.dirname(fileURLToPath(import.meta.url));
    const script = `
      import { ContextIsolation } from ${JSON.stringify(path.join(here, 'context-isolation.ts'))};
      const isolation = await ContextIsolation.create({
        massgenDir: ${JSON.stringify(path.join(repo, '.massgen'))},
        runKey: 'r5',
        specs: [{ path: ${JSON.stringify(repo)}, mode: 'worktree', protectedPaths: [] }],
        agentIds: ['a', 'b'],
      });
      console.log(isolation.viewsOf('a').length);
      process.exit(130);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.join(here, '..', '..'),
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('1');
    expect(child.status).toBe(130);
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('');
    expect(run(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(path.join(repo, '.massgen', 'worktrees', 'r5'))).toBe(false);
  });
});
