/**
 * What a hostile winner can leave in its `write_mode: worktree` checkout, each attack run through the
 * built CLI with a real git repository: a folder replaced by a link to /tmp (the user's uncommitted and
 * untracked files there survive, whatever is chosen), links to /etc/passwd and ../../../../root/.ssh
 * (applied only when picked by name), a `git init` inside (the rest applied; the checkout and branch kept
 * and named), and a failure half-way through the apply (undone, the checkout kept).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logDirs, readEvents, runCli, startCli, useFakeServer, writeConfig } from './cli-harness.js';
import {
  branches,
  committedRepo,
  git,
  gitInstalled,
  lines,
  read,
  reviewsFolder,
  shellConfig,
  shellTeam,
  skipped,
  write,
} from './worktrees.test-support.js';

const fake = useFakeServer();

const prlimitInstalled = spawnSync('prlimit', ['--version']).status === 0;

describe.skipIf(!gitInstalled)(`what a hostile winner leaves in its checkout${skipped}`, () => {
  it('a folder replaced by a link to /tmp: the user’s uncommitted and untracked files there survive, and with nothing approved nothing changes', async () => {
    const cwd = committedRepo();
    // The user's work in docs: an uncommitted edit and an untracked file.
    write(cwd, 'docs/a.md', lines('# A', 'my uncommitted line'));
    write(cwd, 'docs/notes.txt', lines('untracked notes'));
    writeConfig(cwd, shellConfig(fake.server.url, 'local'), 'team.yaml');
    fake.server.setHandler(shellTeam((checkout) => `cd ${checkout} && rm -rf docs && ln -s /tmp docs`));
    const docsAsTheUserLeftThem = () => {
      expect(fs.lstatSync(path.join(cwd, 'docs')).isDirectory()).toBe(true);
      expect(read(cwd, 'docs/a.md')).toBe(lines('# A', 'my uncommitted line'));
      expect(read(cwd, 'docs/notes.txt')).toBe(lines('untracked notes'));
      expect(read(cwd, 'docs/guide.md')).toBe(lines('# Guide'));
    };

    const all = await runCli(['--config', 'team.yaml', '--automation', '--review=all', 'Tidy the docs.'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^CHANGES: .+: applied=0 conflicts=0 failed=3 skipped=1 /m);
    docsAsTheUserLeftThem();
    expect(all.stderr).toContain('docs/a.md not applied: it has uncommitted changes in your checkout');
    expect(all.stderr).toContain('docs/notes.txt not applied: it is untracked in your checkout');
    const events = readEvents(logDirs(cwd)[0]!);
    const proposed = events.find((e) => e.type === 'changes.proposed');
    expect(
      proposed?.type === 'changes.proposed' && proposed.files.find((f) => f.path === 'docs'),
    ).toMatchObject({
      status: 'type-changed',
      before: 'folder',
      after: 'symlink',
      linkTarget: '/tmp',
      pickOnly: 'a symbolic link to /tmp, outside the folder',
    });
    // Nothing came back, so the work stays: the checkout and its branch, named with the commands.
    const [branch] = branches(cwd);
    expect(branch).toMatch(/^massgen\/[^/]+\/a$/);
    expect(all.stderr).toContain(`(branch ${branch}); by hand:`);
    expect(all.stderr).toContain(`git diff --binary`);
    expect(all.stderr).toMatch(/git worktree remove --force '[^']+' && git branch -D 'massgen\/[^']+\/a'/);

    // The link itself, picked by name: the folder still holds files nobody approved removing.
    const picked = startCli(['--config', 'team.yaml', '--automation', '--review', 'Tidy the docs.'], {
      cwd,
      timeoutMs: 90_000,
    });
    const reviews = await reviewsFolder(cwd);
    const request = JSON.parse(fs.readFileSync(path.join(reviews, 'changes-1.request.json'), 'utf8')) as {
      files: { path: string; change: string; pick_only?: string }[];
    };
    expect(request.files.find((f) => f.path === 'docs')).toMatchObject({
      change: 'type changed: folder → symbolic link → /tmp',
      pick_only: 'a symbolic link to /tmp, outside the folder',
    });
    fs.writeFileSync(path.join(reviews, 'changes-1.answer.json'), JSON.stringify({ apply: ['docs'] }));
    const pickedResult = await picked.result;
    expect(pickedResult.stdout).toMatch(/^CHANGES: .+: applied=0 conflicts=0 failed=1 skipped=3 /m);
    expect(pickedResult.stderr).toContain(
      'docs not applied: it is a folder in your folder that still holds docs/a.md',
    );
    docsAsTheUserLeftThem();

    const none = await runCli(['--config', 'team.yaml', '--automation', '--review=none', 'Tidy the docs.'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(none.stdout).toMatch(/^CHANGES: .+: applied=0 conflicts=0 failed=0 skipped=4 /m);
    docsAsTheUserLeftThem();
    // Trimmed: ' M docs/a.md'.
    expect(git(cwd, 'status', '--porcelain', '--', 'docs')).toBe('M docs/a.md\n?? docs/notes.txt');
  });

  it('links to /etc/passwd and ../../../../root/.ssh are left out of "all" and applied only when picked by name', async () => {
    const cwd = committedRepo();
    writeConfig(cwd, shellConfig(fake.server.url, 'local'), 'team.yaml');
    fake.server.setHandler(
      shellTeam(
        (checkout) =>
          `cd ${checkout} && ln -s /etc/passwd passwd && ln -s ../../../../root/.ssh docs/ssh && echo hello > hello.txt`,
      ),
    );
    const all = await runCli(['--config', 'team.yaml', '--automation', '--review=all', 'Add things.'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^CHANGES: .+: applied=1 conflicts=0 failed=0 skipped=2 /m);
    expect(read(cwd, 'hello.txt')).toBe(lines('hello'));
    expect(fs.lstatSync(path.join(cwd, 'passwd'), { throwIfNoEntry: false })).toBeUndefined();
    expect(fs.lstatSync(path.join(cwd, 'docs/ssh'), { throwIfNoEntry: false })).toBeUndefined();
    expect(branches(cwd)).toEqual([]);

    const picked = startCli(['--config', 'team.yaml', '--automation', '--review', 'Add things.'], {
      cwd,
      timeoutMs: 90_000,
    });
    const reviews = await reviewsFolder(cwd);
    const request = JSON.parse(fs.readFileSync(path.join(reviews, 'changes-1.request.json'), 'utf8')) as {
      files: { path: string; change: string; link_target?: string; pick_only?: string }[];
    };
    expect(request.files.filter((f) => f.pick_only !== undefined)).toEqual([
      {
        path: 'docs/ssh',
        status: 'added',
        change: 'added: symbolic link → ../../../../root/.ssh',
        link_target: '../../../../root/.ssh',
        pick_only: 'a symbolic link to ../../../../root/.ssh, outside the folder',
        additions: 1,
        deletions: 0,
      },
      {
        path: 'passwd',
        status: 'added',
        change: 'added: symbolic link → /etc/passwd',
        link_target: '/etc/passwd',
        pick_only: 'a symbolic link to /etc/passwd, outside the folder',
        additions: 1,
        deletions: 0,
      },
    ]);
    fs.writeFileSync(
      path.join(reviews, 'changes-1.answer.json'),
      JSON.stringify({ apply: ['passwd', 'docs/ssh'] }),
    );
    const result = await picked.result;
    // hello.txt is not among them: the first run brought it, so it is no change now.
    expect(result.stdout).toMatch(/^CHANGES: .+: applied=2 conflicts=0 failed=0 skipped=0 /m);
    expect(fs.readlinkSync(path.join(cwd, 'passwd'))).toBe('/etc/passwd');
    expect(fs.readlinkSync(path.join(cwd, 'docs/ssh'))).toBe('../../../../root/.ssh');
  });

  it('a git init in the checkout: the rest is applied, and the checkout and branch are kept and named', async () => {
    const cwd = committedRepo();
    writeConfig(cwd, shellConfig(fake.server.url, 'local'), 'team.yaml');
    fake.server.setHandler(
      shellTeam(
        (checkout) => `cd ${checkout} && git init -q sub && echo work > sub/work.txt && echo more >> a.txt`,
      ),
    );
    const result = await runCli(
      ['--config', 'team.yaml', '--automation', '--review=all', 'Start a library.'],
      {
        cwd,
        timeoutMs: 90_000,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CHANGES: .+: applied=1 conflicts=0 failed=0 skipped=1 /m);
    expect(read(cwd, 'a.txt')).toBe(lines('mine', 'more'));
    expect(fs.existsSync(path.join(cwd, 'sub'))).toBe(false);
    const events = readEvents(logDirs(cwd)[0]!);
    expect(events.some((e) => e.type === 'run.warning' && e.code === 'changes_not_applied')).toBe(false);
    const proposed = events.find((e) => e.type === 'changes.proposed');
    expect(
      proposed?.type === 'changes.proposed' && proposed.files.find((f) => f.path === 'sub'),
    ).toMatchObject({
      status: 'added',
      after: 'repository',
    });
    // The work in the repository of its own is not lost.
    const [branch] = branches(cwd);
    expect(branch).toMatch(/^massgen\/[^/]+\/a$/);
    const kept = /^massgen: kept a's checkout of .+: (\S+) \((massgen\/[^)]+)\)$/m.exec(result.stderr);
    expect(kept?.[2]).toBe(branch);
    expect(read(kept![1]!, 'sub/work.txt')).toBe(lines('work'));
    expect(result.stderr).toContain(`cp -a '${kept![1]}/sub' 'sub'`);
    expect(git(cwd, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
  });

  it.skipIf(!prlimitInstalled)(
    `a failure half-way through the apply undoes what was written and keeps the checkout${prlimitInstalled ? '' : ' (skipped: prlimit is not installed)'}`,
    async () => {
      const cwd = committedRepo();
      writeConfig(cwd, shellConfig(fake.server.url, 'local'), 'team.yaml');
      fake.server.setHandler(
        shellTeam(
          (checkout) =>
            `cd ${checkout} && printf 'by the agent\\n' > a.txt && head -c 16777216 /dev/zero > z.bin`,
        ),
      );
      const cli = startCli(['--config', 'team.yaml', '--automation', '--review', 'Add data.'], {
        cwd,
        timeoutMs: 90_000,
      });
      const reviews = await reviewsFolder(cwd);
      // From now on no file of the CLI's may grow past 8 MiB: a.txt is written, then z.bin fails (EFBIG).
      execFileSync('prlimit', ['--pid', String(cli.child.pid), '--fsize=8388608']);
      fs.writeFileSync(path.join(reviews, 'changes-1.answer.json'), JSON.stringify({ apply: 'all' }));
      const result = await cli.result;
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^CHANGES: .+: applied=0 conflicts=0 failed=2 skipped=0 /m);
      expect(result.stderr).toMatch(/z\.bin: EFBIG[^\n]*; everything written was undone/);
      expect(read(cwd, 'a.txt')).toBe(lines('mine'));
      expect(fs.existsSync(path.join(cwd, 'z.bin'))).toBe(false);
      expect(fs.readdirSync(cwd).filter((n) => n.startsWith('.massgen-undo'))).toEqual([]);
      const [branch] = branches(cwd);
      expect(result.stderr).toContain(`(branch ${branch}); by hand:`);
      expect(git(cwd, 'status', '--porcelain')).toBe('?? .massgen/\n?? team.yaml');
    },
  );
});
