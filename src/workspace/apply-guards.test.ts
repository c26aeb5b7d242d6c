/**
 * What an agent's checkout can do to the user's folder when its changes come back, on real git: a
 * folder replaced by a link to /tmp, links out of the folder, a link planted above a target in the
 * user's folder, a repository of its own (`git init`), renames, mode and type changes. Each is shown
 * for what it is; nothing the review did not approve is touched; no file with uncommitted or untracked
 * changes is removed; the apply is all or nothing; and what does not come back stays in a kept
 * checkout named with the commands to apply it by hand.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ContextIsolation, type Reviewer } from './context-isolation.js';
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

async function isolate(folder: string, runKey: string) {
  const isolation = await ContextIsolation.create({
    massgenDir: path.join(tempDir('massgen-home-'), '.massgen'),
    runKey,
    specs: [{ path: folder, mode: 'worktree', protectedPaths: [] }],
    agentIds: ['a'],
  });
  return { isolation, view: isolation.viewsOf('a')[0]!.view };
}

async function conclude(isolation: ContextIsolation, reviewer: Reviewer) {
  const out = collector();
  await isolation.conclude(
    { winnerId: 'a', emit: out.emit, signal: new AbortController().signal },
    reviewer,
    null,
  );
  return { proposed: out.proposed()[0]!, applied: out.applied()[0]! };
}

const sh = (cwd: string, script: string) => execFileSync('sh', ['-c', script], { cwd, encoding: 'utf8' });

/** Every file under `root` with its content (links as `-> target`), `.git` left out. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    const stats = lstatSync(abs);
    if (stats.isSymbolicLink()) out[rel] = `-> ${readlinkSync(abs)}`;
    else if (stats.isDirectory()) {
      for (const name of execFileSync('ls', ['-A', abs], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
        if (name !== '.git') walk(rel === '' ? name : `${rel}/${name}`);
      }
    } else out[rel] = read(root, rel);
  };
  walk('');
  return out;
}

describe.skipIf(noGit)(`bringing a checkout's changes back safely${skipped}`, () => {
  it('a folder replaced by a link to /tmp: shown as a type change, and the user’s uncommitted and untracked files survive whatever is chosen', async () => {
    const repo = userRepo();
    write(repo, { 'docs/a.md': lines('# A') });
    run(repo, 'add', '-A');
    run(repo, 'commit', '-q', '-m', 'a');
    // Uncommitted and untracked work of the user's, there before the run.
    write(repo, { 'docs/a.md': lines('# A', 'my uncommitted line'), 'docs/notes.txt': lines('untracked') });
    const { isolation, view } = await isolate(repo, 'g1');
    sh(view, 'rm -rf docs && ln -s /tmp docs');
    const before = tree(repo);

    for (const choice of [
      'all',
      'none',
      ['docs'],
      ['docs', 'docs/a.md', 'docs/guide.md', 'docs/notes.txt'],
    ] as const) {
      const { proposed, applied } = await conclude(
        isolation,
        choosing(choice === 'all' || choice === 'none' ? choice : [...choice]),
      );
      expect(tree(repo), `after choosing ${JSON.stringify(choice)}`).toEqual(before);
      expect(applied.applied).toEqual([]);
      if (choice === 'none') expect(applied.failed).toEqual([]);
      else
        expect(applied.failed.map((f) => f.path).sort()).toEqual(
          [...(choice === 'all' ? ['docs/a.md', 'docs/guide.md', 'docs/notes.txt'] : choice)].sort(),
        );
      expect(proposed.files.find((f) => f.path === 'docs')).toMatchObject({
        status: 'type-changed',
        before: 'folder',
        after: 'symlink',
        linkTarget: '/tmp',
        pickOnly: 'a symbolic link to /tmp, outside the folder',
      });
    }
    const { applied } = await conclude(isolation, choosing('all'));
    // "All" leaves the link out; the deletions it holds are refused, so nothing is applied.
    expect(applied.skipped).toEqual(['docs']);
    expect(Object.fromEntries(applied.failed.map((f) => [f.path, f.message]))).toEqual({
      'docs/a.md': 'it has uncommitted changes in your checkout: removing it would lose them',
      'docs/notes.txt': 'it is untracked in your checkout (never committed): removing it would lose it',
      'docs/guide.md': expect.stringMatching(
        /^held back: 2 other chosen changes could not be applied safely/,
      ),
    });
    expect(applied.kept).toMatchObject({ agentId: 'a', branch: 'massgen/g1/a' });
    expect(applied.kept?.commands).toContain(`cd '${repo}'`);
    await isolation.dispose();
    // The work is kept: the checkout and its branch stay for the user to apply by hand.
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('+ massgen/g1/a');
    expect(lstatSync(path.join(view, 'docs')).isSymbolicLink()).toBe(true);
  });

  it('links out of the folder are left out of "all" and applied only when picked by name; a link inside is applied', async () => {
    const repo = userRepo();
    const { isolation, view } = await isolate(repo, 'g2');
    symlinkSync('/etc/passwd', path.join(view, 'passwd'));
    symlinkSync('../../../../root/.ssh', path.join(view, 'docs', 'ssh'));
    symlinkSync('docs/guide.md', path.join(view, 'guide-link'));
    symlinkSync(`${repo}/.git/config`, path.join(view, 'config-link'));
    const { proposed, applied } = await conclude(isolation, choosing('all'));
    expect(proposed.files.map((f) => [f.path, f.status, f.after, f.linkTarget, f.pickOnly])).toEqual([
      [
        'config-link',
        'added',
        'symlink',
        `${repo}/.git/config`,
        `a symbolic link to ${repo}/.git/config, into a repository's .git`,
      ],
      [
        'docs/ssh',
        'added',
        'symlink',
        '../../../../root/.ssh',
        'a symbolic link to ../../../../root/.ssh, outside the folder',
      ],
      ['guide-link', 'added', 'symlink', 'docs/guide.md', undefined],
      ['passwd', 'added', 'symlink', '/etc/passwd', 'a symbolic link to /etc/passwd, outside the folder'],
    ]);
    expect(applied).toMatchObject({
      applied: ['guide-link'],
      skipped: ['config-link', 'docs/ssh', 'passwd'],
      failed: [],
    });
    expect(readlinkSync(path.join(repo, 'guide-link'))).toBe('docs/guide.md');
    expect(lstatSync(path.join(repo, 'passwd'), { throwIfNoEntry: false })).toBeUndefined();
    expect(lstatSync(path.join(repo, 'docs', 'ssh'), { throwIfNoEntry: false })).toBeUndefined();

    const picked = await conclude(isolation, choosing(['passwd', 'docs/ssh']));
    expect(picked.applied).toMatchObject({ applied: ['docs/ssh', 'passwd'], failed: [] });
    expect(readlinkSync(path.join(repo, 'passwd'))).toBe('/etc/passwd');
    expect(readlinkSync(path.join(repo, 'docs', 'ssh'))).toBe('../../../../root/.ssh');
    await isolation.dispose();
  });

  it('never writes through a link the user’s folder has above a target, and writes nothing else either', async () => {
    const repo = userRepo();
    const elsewhere = tempDir('massgen-elsewhere-');
    write(elsewhere, { 'app.ts': lines('outside') });
    const { isolation, view } = await isolate(repo, 'g3');
    write(view, { 'src/app.ts': lines('by the agent'), 'notes.txt': lines('notes by the agent') });
    // Meanwhile src becomes a link to a folder outside.
    renameSync(path.join(repo, 'src'), path.join(repo, 'src-old'));
    symlinkSync(elsewhere, path.join(repo, 'src'));
    const { applied } = await conclude(isolation, choosing('all'));
    expect(applied.failed).toEqual([
      {
        path: 'src/app.ts',
        message: 'src is a symbolic link in your folder: writing src/app.ts would go through it',
      },
      { path: 'notes.txt', message: expect.stringMatching(/^held back: another chosen change/) },
    ]);
    expect(read(elsewhere, 'app.ts')).toBe(lines('outside'));
    expect(read(repo, 'notes.txt')).toBe(lines('my notes'));
    await isolation.dispose();
    run(repo, 'worktree', 'remove', '--force', applied.kept!.path);
  });

  it('a repository of its own (git init) is committed around, shown as what it is, never applied, and kept with its checkout', async () => {
    const repo = userRepo();
    const { isolation, view } = await isolate(repo, 'g4');
    // One with no commit (git refuses to add it at all) and one with a commit (a gitlink).
    sh(view, 'git init -q fresh && echo work > fresh/work.txt');
    sh(
      view,
      'git init -q vendored && echo v > vendored/v.txt && git -C vendored add -A && git -C vendored -c user.name=x -c user.email=x@x commit -qm v',
    );
    write(view, { 'notes.txt': lines('notes by the agent') });
    const all = await conclude(isolation, choosing('all'));
    expect(all.proposed.files.map((f) => [f.path, f.status, f.after, f.pickOnly !== undefined])).toEqual([
      ['fresh', 'added', 'repository', true],
      ['notes.txt', 'modified', 'file', false],
      ['vendored', 'added', 'repository', true],
    ]);
    expect(all.applied).toMatchObject({ applied: ['notes.txt'], skipped: ['fresh', 'vendored'], failed: [] });
    expect(read(repo, 'notes.txt')).toBe(lines('notes by the agent'));
    expect(existsSync(path.join(repo, 'fresh'))).toBe(false);
    expect(all.applied.kept?.commands).toContain(
      `cp -a '${view}/fresh' 'fresh'   # a repository of its own, if you want it`,
    );

    const picked = await conclude(isolation, choosing(['fresh', 'notes.txt']));
    expect(picked.applied.failed[0]).toEqual({
      path: 'fresh',
      message:
        'it is a git repository of its own in the winner’s checkout: copy it by hand from the kept checkout',
    });
    expect(existsSync(path.join(repo, 'fresh'))).toBe(false);
    await isolation.dispose();
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('+ massgen/g4/a');
    expect(read(view, 'fresh/work.txt')).toBe('work\n');
    // The branch holds no gitlink: the repositories stayed out of every commit.
    expect(run(repo, 'ls-tree', '-r', 'massgen/g4/a')).not.toMatch(/^160000/m);
  });

  it('shows renames, mode changes and type changes, applies them, and removes only what is committed and unchanged', async () => {
    const repo = userRepo();
    write(repo, { 'run.sh': lines('echo hi'), 'old.md': lines('# Old', 'body', 'more', 'lines') });
    run(repo, 'add', '-A');
    run(repo, 'commit', '-q', '-m', 'more');
    const { isolation, view } = await isolate(repo, 'g5');
    renameSync(path.join(view, 'old.md'), path.join(view, 'new.md'));
    chmodSync(path.join(view, 'run.sh'), 0o755);
    rmSync(path.join(view, 'notes.txt'));
    symlinkSync('docs/guide.md', path.join(view, 'notes.txt'));
    const { proposed, applied } = await conclude(isolation, choosing('all'));
    expect(proposed.files.map((f) => [f.path, f.status, f.from, f.before, f.after])).toEqual([
      ['new.md', 'renamed', 'old.md', 'file', 'file'],
      ['notes.txt', 'type-changed', undefined, 'file', 'symlink'],
      ['run.sh', 'mode-changed', undefined, 'file', 'executable'],
    ]);
    expect(applied).toMatchObject({ applied: ['new.md', 'notes.txt', 'run.sh'], failed: [] });
    expect(existsSync(path.join(repo, 'old.md'))).toBe(false);
    expect(read(repo, 'new.md')).toBe(lines('# Old', 'body', 'more', 'lines'));
    expect(readlinkSync(path.join(repo, 'notes.txt'))).toBe('docs/guide.md');
    expect(statSync(path.join(repo, 'run.sh')).mode & 0o111).not.toBe(0);
    await isolation.dispose();
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('');
  });

  it('refuses a rename whose old file the user edited, and leaves both files as they were', async () => {
    const repo = userRepo();
    const { isolation, view } = await isolate(repo, 'g6');
    renameSync(path.join(view, 'notes.txt'), path.join(view, 'notes.md'));
    write(repo, { 'notes.txt': lines('my notes', 'edited during the run') });
    const { applied } = await conclude(isolation, choosing('all'));
    expect(applied.failed).toEqual([
      {
        path: 'notes.md',
        message:
          'its old path notes.txt changed in your folder since the run began; removing it would lose that',
      },
    ]);
    expect(read(repo, 'notes.txt')).toBe(lines('my notes', 'edited during the run'));
    expect(existsSync(path.join(repo, 'notes.md'))).toBe(false);
    await isolation.dispose();
    run(repo, 'worktree', 'remove', '--force', applied.kept!.path);
  });
});

describe.skipIf(noGit)(`when bringing the changes back fails outright${skipped}`, () => {
  it('keeps the winner’s checkout and branch and names them, with the commands, in the error', async () => {
    const repo = userRepo();
    const { isolation, view } = await isolate(repo, 'g8');
    write(view, { 'notes.txt': lines('by the agent') });
    const failing: Reviewer = {
      awaitsReview: true,
      review: () => Promise.reject(new Error('the review desk went away')),
    };
    const error = await isolation
      .conclude({ winnerId: 'a', emit: () => undefined, signal: new AbortController().signal }, failing, null)
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toContain(
      `${repo}: the review desk went away; kept a's checkout ${view} (branch massgen/g8/a); to apply by hand: cd '${repo}'`,
    );
    expect(error?.message).toMatch(/git diff --binary [0-9a-f]{40} 'massgen\/g8\/a' -- '\.' \| git apply/);
    await isolation.dispose();
    expect(run(repo, 'branch', '--list', 'massgen/*')).toBe('+ massgen/g8/a');
    expect(read(view, 'notes.txt')).toBe(lines('by the agent'));
    expect(read(repo, 'notes.txt')).toBe(lines('my notes'));
  });
});

describe.skipIf(noGit)(`git's environment${skipped}`, () => {
  it('gives git and the programs it runs no API key, and no GIT_* variable of the caller’s to redirect it', async () => {
    const repo = userRepo();
    const other = userRepo();
    const dump = path.join(tempDir('massgen-env-'), 'env.txt');
    // A clean filter of the user's: git runs it while snapshotting, with git's own environment.
    run(repo, 'config', 'filter.spy.clean', `env >> '${dump}'; cat`);
    write(repo, { '.gitattributes': lines('*.md filter=spy') });
    const saved = { ...process.env };
    Object.assign(process.env, {
      OPENAI_API_KEY: 'sk-test-not-for-git',
      ANTHROPIC_API_KEY: 'sk-ant-test-not-for-git',
      GIT_DIR: path.join(other, '.git'),
      GIT_INDEX_FILE: path.join(other, '.git', 'index'),
      GIT_LITERAL_PATHSPECS: '1',
    });
    try {
      const { isolation, view } = await isolate(repo, 'g7');
      write(view, { 'docs/guide.md': lines('# Guide by the agent') });
      const { applied } = await conclude(isolation, choosing('all'));
      expect(applied.applied).toEqual(['docs/guide.md']);
      await isolation.dispose();
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    const seen = read(path.dirname(dump), 'env.txt');
    expect(seen).toContain('PATH=');
    expect(seen).not.toMatch(/API_KEY|sk-test|sk-ant/);
    expect(seen).not.toContain(other);
    expect(seen).not.toMatch(/^GIT_LITERAL_PATHSPECS=/m);
    // The other repository was never touched.
    expect(run(other, 'status', '--porcelain')).toBe('');
    expect(run(other, 'log', '--format=%s')).toBe('init');
    expect(read(repo, 'docs/guide.md')).toBe(lines('# Guide by the agent'));
  });
});

describe('the apply is all or nothing', () => {
  it('undoes every write, removal and folder when a late step fails', async () => {
    const { runApply } = await import('./apply-transaction.js');
    const folder = tempDir('massgen-apply-');
    write(folder, { 'a.txt': lines('a'), 'b.txt': lines('b'), 'keep/c.txt': lines('c') });
    mkdirSync(path.join(folder, 'empty'));
    write(folder, { taken: lines('already here') });
    const before = tree(folder);
    await expect(
      runApply(folder, [
        { op: 'remove', rel: 'b.txt' },
        { op: 'rmdir', rel: 'empty' },
        { op: 'write', rel: 'a.txt', content: Buffer.from('new a\n'), executable: false, mode: 0o644 },
        { op: 'write', rel: 'new/deep/d.txt', content: Buffer.from('d\n'), executable: false, mode: null },
        { op: 'chmod', rel: 'keep/c.txt', mode: 0o755 },
        // Appeared after the check: the link cannot be made.
        { op: 'link', rel: 'taken', linkTarget: '/tmp' },
      ]),
    ).rejects.toThrow(/^taken: EEXIST.*; everything written was undone$/);
    expect(tree(folder)).toEqual(before);
    expect(existsSync(path.join(folder, 'empty'))).toBe(true);
    expect(existsSync(path.join(folder, 'new'))).toBe(false);
    expect(statSync(path.join(folder, 'keep/c.txt')).mode & 0o111).toBe(0);
    expect(execFileSync('ls', ['-A', folder], { encoding: 'utf8' })).not.toContain('massgen-undo');
  });

  // Root writes every folder, so the ordinary user's case runs as `nobody` (setpriv) when tests run as root.
  const asRoot = process.getuid?.() === 0;
  const drop = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'] : [];
  const canDrop = !asRoot || spawnSync('setpriv', [...drop.slice(1), 'true']).status === 0;
  it.skipIf(!canDrop)(
    `as an ordinary user, a folder it may not write fails the apply half-way, and everything is undone${canDrop ? '' : ' (skipped: setpriv cannot run as nobody here)'}`,
    () => {
      const folder = tempDir('massgen-apply-user-');
      write(folder, { 'a.txt': lines('a'), 'locked/b.txt': lines('b') });
      if (asRoot) execFileSync('chown', ['-R', '65534:65534', folder]);
      chmodSync(path.join(folder, 'locked'), 0o555);
      const before = tree(folder);
      const here = path.dirname(fileURLToPath(import.meta.url));
      const script = `
        import { runApply } from ${JSON.stringify(path.join(here, 'apply-transaction.ts'))};
        await runApply(${JSON.stringify(folder)}, [
          { op: 'write', rel: 'a.txt', content: Buffer.from('new a\\n'), executable: false, mode: 0o644 },
          { op: 'write', rel: 'new.txt', content: Buffer.from('new\\n'), executable: false, mode: null },
          { op: 'write', rel: 'locked/b.txt', content: Buffer.from('new b\\n'), executable: false, mode: 0o644 },
        ]).then(() => console.log('applied'), (error) => console.log(error.message));
      `;
      const [program, ...args] = [
        ...drop,
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ];
      const child = spawnSync(program!, args, { cwd: path.join(here, '..', '..'), encoding: 'utf8' });
      expect(child.stdout.trim()).toMatch(
        /^locked\/b\.txt: EACCES: permission denied.*; everything written was undone$/,
      );
      expect(tree(folder)).toEqual(before);
      chmodSync(path.join(folder, 'locked'), 0o755);
    },
  );
});
