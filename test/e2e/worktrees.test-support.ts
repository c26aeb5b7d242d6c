import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  agentOf,
  logDirs,
  makeWorkdir,
  persona,
  systemText,
  toolNames,
  votableIds,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';

/** Helpers of the `write_mode: worktree` e2e tests: a real git repository, scripted agents. */

export let gitInstalled = true;
try {
  execFileSync('git', ['--version'], { stdio: 'ignore' });
} catch {
  gitInstalled = false;
}
export const skipped = gitInstalled ? '' : ' (skipped: git is not installed)';

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Me', '-c', 'user.email=me@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

export const lines = (...l: string[]) => `${l.join('\n')}\n`;
export const write = (root: string, rel: string, content: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), content);
};
export const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

/** Where the agent was told its own checkout of the context path is. */
export const checkoutOf = (body: FakeChatRequestBody) =>
  /^- (\S+) \(your own checkout of the user's/m.exec(systemText(body))?.[1] ?? '(no checkout)';

/**
 * Agent `a` runs `script(its checkout)` in a shell and answers; `b` answers that it has nothing; both
 * vote for agent1 once its answer is there (b for its own until then). `a` presents.
 */
export function shellTeam(script: (checkout: string) => string) {
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
export const shellConfig = (serverUrl: string, mode: 'local' | 'sandbox') => ({
  agents: ['a', 'b'].map((id) =>
    agentEntry(id, serverUrl, {
      system_message: persona(id),
      backend: { cwd: `ws_${id}`, enable_code_execution: true, execution_mode: mode },
    }),
  ),
  orchestrator: { context_paths: [{ path: '.', permission: 'write', write_mode: 'worktree' }] },
});

/** A repository with `docs/a.md`, `docs/guide.md` and `a.txt` committed. */
export function committedRepo(): string {
  const cwd = makeWorkdir();
  git(cwd, 'init', '-q', '-b', 'main');
  write(cwd, 'docs/a.md', lines('# A'));
  write(cwd, 'docs/guide.md', lines('# Guide'));
  write(cwd, 'a.txt', lines('mine'));
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', 'init');
  return cwd;
}

export const branches = (cwd: string) =>
  git(cwd, 'branch', '--list', 'massgen/*')
    .split('\n')
    .map((b) => b.replace(/^[+* ]+/, ''))
    .filter(Boolean);

/** Waits for the run's review request (`--review` without a terminal) and returns the reviews folder. */
export async function reviewsFolder(cwd: string): Promise<string> {
  let reviews = '';
  await waitUntil(() => {
    const logDir = logDirs(cwd).find((d) => fs.existsSync(path.join(d, 'reviews', 'changes-1.request.json')));
    if (logDir) reviews = path.join(logDir, 'reviews');
    return logDir !== undefined;
  }, 'the review request');
  return reviews;
}
