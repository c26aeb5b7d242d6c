/**
 * `write_mode: worktree` through the built CLI, with a real git repository in a temp folder: two
 * scripted agents edit their own worktrees (never the user's checkout), the winner's diff waits for a
 * review through the file handshake (`--review` without a terminal), is applied in part with git's
 * three-way merge — the user's uncommitted edit in another file survives, a conflicting edit is
 * reported — and no worktree or branch is left. A folder outside git works the same way (a copy).
 * What a hostile winner can leave in its checkout: worktree-attacks.test.ts.
 */
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
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';
import {
  checkoutOf,
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
      writeConfig(cwd, shellConfig(fake.server.url, 'sandbox'), 'team.yaml');
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
