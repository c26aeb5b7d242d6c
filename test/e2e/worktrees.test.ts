/**
 * `write_mode: worktree` through the built CLI, with a real git repository in a temp folder: two
 * scripted agents edit their own worktrees (never the user's checkout), the winner's diff waits for a
 * review through the file handshake (`--review` without a terminal), is applied in part with git's
 * three-way merge — the user's uncommitted edit in another file survives, a conflicting edit is
 * reported — and no worktree or branch is left. A folder outside git works the same way (a copy).
 *
 * Then what a hostile winner can leave in its checkout, each attack run through the CLI: a folder
 * replaced by a link to /tmp (the user's uncommitted and untracked files there survive), links to
 * /etc/passwd and ../../../../root/.ssh (applied only when picked by name), a `git init` inside (the
 * checkout and branch are kept and named), and a failure half-way through the apply (undone).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import {
  agentEntry,
  agentOf,
  logDirs,
  makeWorkdir,
  persona,
  readEvents,
  runCli,
  startCli,
  systemText,
  toolNames,
  useFakeServer,
  votableIds,
  waitFor,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();

let gitInstalled = true;
try {
  execFileSync('git', ['--version'], { stdio: 'ignore' });
} catch {
  gitInstalled = false;
}
const skipped = gitInstalled ? '' : ' (skipped: git is not installed)';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Me', '-c', 'user.email=me@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const write = (root: string, rel: string, content: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), content);
};
const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

/** Where the agent was told its own checkout of the context path is. */
const checkoutOf = (body: FakeChatRequestBody) =>
  /^- (\S+) \(your own checkout of the user's/m.exec(systemText(body))?.[1] ?? '(no checkout)';

type Edits = Record<string, string>;

/**
 * Agent `a` (anonymous agent1) writes `edits.a` into its checkout and answers; `b` writes `edits.b`
 * into its own, then votes for agent1 once it is there (else answers); `a` votes for itself once its
 * answer is in. The winner, a, presents in plain text.
 */
function team(edits: { a: Edits; b: Edits }) {
  return (body: FakeChatRequestBody): FakeResponse => {
    const id = agentOf(body) ?? '?';
    if (!toolNames(body).includes('new_answer')) return { text: `final answer by ${id}` };
    const done = (body.messages ?? []).filter((m) => m.role === 'tool').length;
    const mine = Object.entries(id === 'a' ? edits.a : edits.b);
    const votable = votableIds(body).includes('agent1');
    if (id === 'a' && votable)
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'mine' } }] };
    const next = mine[done];
    if (next) {
      const [rel, content] = next;
      return {
        toolCalls: [{ name: 'write_file', arguments: { path: path.join(checkoutOf(body), rel), content } }],
      };
    }
    if (votable) return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'good' } }] };
    return {
      toolCalls: [
        { name: 'new_answer', arguments: { content: `${id} changed ${mine.map(([r]) => r).join(', ')}` } },
      ],
    };
  };
}

const config = (contextPath: string, extra: Record<string, unknown> = {}) => ({
  agents: ['a', 'b'].map((id) =>
    agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `ws_${id}` } }),
  ),
  orchestrator: {
    context_paths: [{ path: contextPath, permission: 'write', write_mode: 'worktree', ...extra }],
  },
});

/**
 * Agent `a` runs `script(its checkout)` in a shell and answers; `b` answers that it has nothing; both
 * vote for agent1 once its answer is there (b for its own until then). `a` presents.
 */
function shellTeam(script: (checkout: string) => string) {
  return (body: FakeChatRequestBody): FakeResponse => {
    const id = agentOf(body) ?? '?';
    if (!toolNames(body).includes('new_answer')) return { text: `final answer by ${id}` };
    if (votableIds(body).includes('agent1'))
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'ok' } }] };
    if (id === 'b') {
      // Once its own answer is in, b waits by voting for it (answering the same again is refused).
      if (votableIds(body).includes('agent2'))
        return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent2', reason: 'waiting' } }] };
      return { toolCalls: [{ name: 'new_answer', arguments: { content: 'b has nothing' } }] };
    }
    const done = (body.messages ?? []).filter((m) => m.role === 'tool').length;
    if (done === 0)
      return { toolCalls: [{ name: 'execute_command', arguments: { command: script(checkoutOf(body)) } }] };
    return { toolCalls: [{ name: 'new_answer', arguments: { content: 'a changed the folder' } }] };
  };
}

/** Two agents that may run commands (`mode`: where), on the folder `.` with `write_mode: worktree`. */
const shellConfig = (mode: 'local' | 'sandbox') => ({
  agents: ['a', 'b'].map((id) =>
    agentEntry(id, fake.server.url, {
      system_message: persona(id),
      backend: { cwd: `ws_${id}`, enable_code_execution: true, execution_mode: mode },
    }),
  ),
  orchestrator: { context_paths: [{ path: '.', permission: 'write', write_mode: 'worktree' }] },
});

/** A repository with `docs/a.md`, `docs/guide.md` and `a.txt` committed. */
function committedRepo(): string {
  const cwd = makeWorkdir();
  git(cwd, 'init', '-q', '-b', 'main');
  write(cwd, 'docs/a.md', lines('# A'));
  write(cwd, 'docs/guide.md', lines('# Guide'));
  write(cwd, 'a.txt', lines('mine'));
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', 'init');
  return cwd;
}

const branches = (cwd: string) =>
  git(cwd, 'branch', '--list', 'massgen/*')
    .split('\n')
    .map((b) => b.replace(/^[+* ]+/, ''))
    .filter(Boolean);

/** Waits for the run's review request (`--review` without a terminal) and returns the reviews folder. */
async function reviewsFolder(cwd: string): Promise<string> {
  let reviews = '';
  await waitFor(
    () => {
      const logDir = logDirs(cwd).find((d) =>
        fs.existsSync(path.join(d, 'reviews', 'changes-1.request.json')),
      );
      if (logDir) reviews = path.join(logDir, 'reviews');
      return logDir !== undefined;
    },
    60_000,
    'the review request',
  );
  return reviews;
}

const prlimitInstalled = spawnSync('prlimit', ['--version']).status === 0;

describe.skipIf(!gitInstalled)(`write_mode: worktree through the CLI${skipped}`, () => {
  it('reviews the winner’s diff through the file handshake, applies part of it three-way, and leaves no worktree or branch', async () => {
    const cwd = makeWorkdir();
    git(cwd, 'init', '-q', '-b', 'main');
    write(cwd, 'src/app.ts', lines('export const a = 1;', 'export const b = 2;'));
    write(cwd, 'docs/guide.md', lines('# Guide', '', 'Step one.'));
    write(cwd, 'notes.txt', lines('my notes'));
    git(cwd, 'add', '-A');
    git(cwd, 'commit', '-q', '-m', 'init');
    const head = git(cwd, 'rev-parse', 'HEAD');
    // An uncommitted edit of the user's, made before the run.
    write(cwd, 'notes.txt', lines('my notes', 'uncommitted'));
    writeConfig(cwd, config('.'), 'team.yaml');
    fake.server.setHandler(
      team({
        a: {
          'src/app.ts': lines('export const a = 1;', 'export const b = 20;'),
          'src/new.ts': lines('export const fresh = true;'),
          'docs/guide.md': lines('# Guide', '', 'Step one, by a.'),
        },
        b: { 'src/app.ts': lines('export const a = 100;', 'export const b = 2;') },
      }),
    );

    const cli = startCli(['--config', 'team.yaml', '--automation', '--review', 'Improve the project.'], {
      cwd,
      timeoutMs: 90_000,
    });
    const reviews = await reviewsFolder(cwd);
    // While the run waits: the user's folder is untouched, each agent worked on its own branch.
    expect(read(cwd, 'src/app.ts')).toBe(lines('export const a = 1;', 'export const b = 2;'));
    expect(
      git(cwd, 'branch', '--list', 'massgen/*')
        .split('\n')
        .map((b) => b.replace(/^[+* ]+/, ''))
        .sort(),
    ).toEqual([expect.stringMatching(/^massgen\/[^/]+\/a$/), expect.stringMatching(/^massgen\/[^/]+\/b$/)]);
    const request = JSON.parse(fs.readFileSync(path.join(reviews, 'changes-1.request.json'), 'utf8')) as {
      files: { path: string; status: string }[];
      diff_file: string;
      branch: string;
    };
    expect(request.files).toEqual([
      { path: 'docs/guide.md', status: 'modified', change: 'modified', additions: 1, deletions: 1 },
      { path: 'src/app.ts', status: 'modified', change: 'modified', additions: 1, deletions: 1 },
      { path: 'src/new.ts', status: 'added', change: 'added', additions: 1, deletions: 0 },
    ]);
    expect(request.branch).toMatch(/^massgen\/[^/]+\/a$/);
    expect(fs.readFileSync(request.diff_file, 'utf8')).toContain('+export const b = 20;');
    // Meanwhile the user edits the guide's same line (a conflict) and the notes again.
    write(cwd, 'docs/guide.md', lines('# Guide', '', 'Step one, by me.'));
    write(cwd, 'notes.txt', lines('my notes', 'uncommitted', 'more'));
    fs.writeFileSync(
      path.join(reviews, 'changes-1.answer.json'),
      JSON.stringify({ apply: ['src/app.ts', 'docs/guide.md'] }),
    );

    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^CHANGES: .+: applied=1 conflicts=1 failed=0 skipped=1 diff=\S+changes-1\.diff$/m,
    );
    expect(read(cwd, 'src/app.ts')).toBe(lines('export const a = 1;', 'export const b = 20;'));
    expect(fs.existsSync(path.join(cwd, 'src/new.ts'))).toBe(false);
    const guide = read(cwd, 'docs/guide.md');
    expect(guide).toContain('<<<<<<<');
    expect(guide).toContain('Step one, by me.');
    expect(guide).toContain('Step one, by a.');
    expect(read(cwd, 'notes.txt')).toBe(lines('my notes', 'uncommitted', 'more'));
    expect(git(cwd, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(cwd, 'diff', '--cached', '--name-only')).toBe('');
    // Nothing left behind.
    expect(git(cwd, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(cwd, 'branch', '--list', 'massgen/*')).toBe('');
    expect(fs.readdirSync(path.join(cwd, '.massgen', 'worktrees'))).toEqual([]);

    const events = readEvents(logDirs(cwd)[0]!);
    expect(events.find((e) => e.type === 'changes.applied')).toMatchObject({
      by: 'file',
      applied: ['src/app.ts'],
      conflicts: ['docs/guide.md'],
      skipped: ['src/new.ts'],
    });
    // b's edit stayed on b's branch: the winner's changes are a's alone.
    expect(read(cwd, 'src/app.ts')).not.toContain('100');
    const aWrites = events.filter(
      (e) => e.type === 'tool.call.finished' && e.agentId === 'a' && e.toolName === 'write_file',
    );
    expect(aWrites.every((e) => e.type === 'tool.call.finished' && !e.isError)).toBe(true);
  });

  it.skipIf(!sandboxSupport(process.env.PATH).ok)(
    'a sandboxed command writes the agent’s own worktree while coordinating, and nothing else of the repository',
    async () => {
      const cwd = makeWorkdir();
      git(cwd, 'init', '-q', '-b', 'main');
      write(cwd, 'README.md', lines('# Project'));
      git(cwd, 'add', '-A');
      git(cwd, 'commit', '-q', '-m', 'init');
      // The user's own folder is out of reach: a write there never lands.
      fake.server.setHandler(
        shellTeam(
          (checkout) =>
            `printf 'from the shell\\n' > ${checkout}/shell.txt && echo wrote; printf x > ${cwd}/direct.txt; true`,
        ),
      );
      writeConfig(cwd, shellConfig('sandbox'), 'team.yaml');
      const result = await runCli(['--config', 'team.yaml', '--automation', 'Add a file.'], {
        cwd,
        timeoutMs: 90_000,
      });
      expect(result.code).toBe(0);
      const events = readEvents(logDirs(cwd)[0]!);
      const command = events.find((e) => e.type === 'tool.call.finished' && e.toolName === 'execute_command');
      expect(command).toMatchObject({ phase: 'coordination' });
      expect(command?.type === 'tool.call.finished' && command.result).toMatch(
        /^exit code 0 \(sandbox\)\nwrote/,
      );
      expect(read(cwd, 'shell.txt')).toBe(lines('from the shell'));
      expect(fs.existsSync(path.join(cwd, 'direct.txt'))).toBe(false);
      expect(git(cwd, 'branch', '--list', 'massgen/*')).toBe('');
    },
  );

  it('works on a folder outside git through a copy, with --review=all', async () => {
    const cwd = makeWorkdir();
    write(cwd, 'site/index.html', lines('<h1>Hi</h1>'));
    write(cwd, 'site/style.css', lines('body {}'));
    writeConfig(cwd, config('site'), 'team.yaml');
    fake.server.setHandler(
      team({
        a: { 'index.html': lines('<h1>Hello</h1>'), 'about.html': lines('<p>About</p>') },
        b: { 'style.css': lines('body { color: red; }') },
      }),
    );
    const result = await runCli(
      ['--config', 'team.yaml', '--automation', '--review=all', 'Improve the site.'],
      {
        cwd,
        timeoutMs: 90_000,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CHANGES: .+site: applied=2 conflicts=0 failed=0 skipped=0/m);
    expect(read(cwd, 'site/index.html')).toBe(lines('<h1>Hello</h1>'));
    expect(read(cwd, 'site/about.html')).toBe(lines('<p>About</p>'));
    expect(read(cwd, 'site/style.css')).toBe(lines('body {}'));
    expect(fs.existsSync(path.join(cwd, 'site', '.git'))).toBe(false);
    expect(fs.readdirSync(path.join(cwd, '.massgen', 'worktrees'))).toEqual([]);
    const applied = readEvents(logDirs(cwd)[0]!).find((e) => e.type === 'changes.applied');
    expect(applied).toMatchObject({ by: 'flag', applied: ['about.html', 'index.html'] });
  });
});

describe.skipIf(!gitInstalled)(`what a hostile winner leaves in its checkout${skipped}`, () => {
  it('a folder replaced by a link to /tmp: the user’s uncommitted and untracked files there survive, and with nothing approved nothing changes', async () => {
    const cwd = committedRepo();
    // The user's work in docs: an uncommitted edit and an untracked file.
    write(cwd, 'docs/a.md', lines('# A', 'my uncommitted line'));
    write(cwd, 'docs/notes.txt', lines('untracked notes'));
    writeConfig(cwd, shellConfig('local'), 'team.yaml');
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
    writeConfig(cwd, shellConfig('local'), 'team.yaml');
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
    writeConfig(cwd, shellConfig('local'), 'team.yaml');
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
      writeConfig(cwd, shellConfig('local'), 'team.yaml');
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
