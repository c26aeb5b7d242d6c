/**
 * Attacks on `execute_command`, run with real bash on real temporary folders. Every attack must be
 * refused before it runs (a tool error saying why) or contained while it runs, and the fixture tree
 * outside the workspace must be byte-for-byte unchanged afterwards. Runaway commands must be killed
 * promptly with everything they started, and huge output must neither block nor fill memory.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCommandToolProvider } from '../../src/tools/execute-command/index.js';
import { treeChecksum } from '../../src/tools/filesystem/filesystem.test-support.js';
import { createPathChecker } from '../../src/tools/permissions/check-path.js';
import type { ToolProvider } from '../../src/tools/tool-provider.js';
import type { ToolContext, ToolResult } from '../../src/types/tool.js';

let root: string;
let ws: string;
let fixture: string;
let baseline: string;
let rootListing: string[];
let provider: ToolProvider;
const SLASH_NAMES = ['x', 'f', 'escape.txt', 'b', 'out', 'link'];
const slashBefore = SLASH_NAMES.filter((name) => existsSync(path.join('/', name)));

function context(signal = new AbortController().signal): ToolContext {
  return { agentId: 'agent_a', phase: 'coordination', signal };
}

function run(
  command: string,
  extra: { timeout_seconds?: number } = {},
  signal?: AbortSignal,
): Promise<ToolResult> {
  return provider.call('execute_command', { command, ...extra }, context(signal));
}

/** Processes (not zombies) whose command line contains `marker`. */
function living(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.trim().startsWith('Z'));
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'massgen-exec-')));
  ws = path.join(root, 'ws');
  fixture = path.join(root, 'fixture');
  await mkdir(path.join(ws, 'sub'), { recursive: true });
  await mkdir(path.join(fixture, 'nested', 'deeper'), { recursive: true });
  await writeFile(path.join(fixture, 'secret.txt'), 'the secret\n');
  await writeFile(path.join(fixture, 'nested', 'data.json'), '{"keep": true}\n');
  await writeFile(path.join(fixture, 'nested', 'deeper', 'notes.md'), '# notes\n');
  await symlink('secret.txt', path.join(fixture, 'alias.txt'));
  await writeFile(path.join(ws, 'secret'), 'workspace data\n');
  // Planted earlier (say, by a previous command): a link from the workspace into the fixture.
  await symlink(fixture, path.join(ws, 'planted'));
  baseline = await treeChecksum(fixture);
  rootListing = (await readdir(root)).sort();
  provider = createCommandToolProvider({
    workspace: ws,
    checkPath: createPathChecker({ workspace: ws, peerSnapshots: null, contextPaths: [], readOnly: [] }),
    timeoutMs: 10_000,
    maxOutputChars: 5_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: '/root',
      FAKE_API_KEY: 'sk-fake-123',
      GITHUB_TOKEN: 'ghp_fake',
      DB_PASSWORD: 'hunter2',
    },
    mode: 'local',
  });
});

afterEach(async () => {
  expect(await treeChecksum(fixture)).toBe(baseline);
  expect((await readdir(root)).sort()).toEqual(rootListing);
  // What the attacks would create at the filesystem root.
  expect(SLASH_NAMES.filter((name) => existsSync(path.join('/', name)))).toEqual(slashBefore);
});

afterAll(async () => {
  await provider.close();
  await rm(root, { recursive: true, force: true });
});

describe('execute_command refuses attacks before running them', () => {
  const attacks: [string, () => string, RegExp][] = [
    ['cd to the root, then write', () => 'cd /; touch x', /changes directory to "\/"/],
    ['cd out of the workspace, then write', () => 'cd ..; echo > f', /changes directory to "\.\."/],
    ['redirect outside', () => 'echo hi > ../escape.txt', /writes to "\.\.\/escape\.txt"/],
    ['read outside inside $(…)', () => 'echo $(cat /etc/hostname) > out', /reads "\/etc\/hostname"/],
    ['delete inside $(…)', () => `echo $(rm -rf ${fixture}) > out`, /deletes/],
    ['delete inside backticks', () => `echo \`rm -rf ${fixture}\``, /deletes/],
    ['read through backticks', () => `cat \`echo ${fixture}/secret.txt\``, /reads/],
    ['bash -c with a delete', () => `bash -c "rm -rf ${fixture}"`, /deletes/],
    ['eval with a delete', () => `eval "rm -rf ${fixture}/nested"`, /deletes/],
    ['rm -rf /', () => 'rm -rf /', /rm -rf \/ and its variants are never run/],
    ['sudo', () => 'sudo ls', /"sudo" runs commands as another user/],
    ['copy into the fixture', () => `cp secret ${fixture}/x`, /writes to/],
    [
      'link to the fixture, then write through the link',
      () => `ln -s ${fixture} link; echo > link/f`,
      /links to/,
    ],
    ['write through a planted link', () => 'echo pwned > planted/f', /resolves to/],
    ['delete through a planted link', () => 'rm -rf planted/', /deletes "planted\/"/],
    ['brace expansion out of the workspace', () => 'touch {a,../b}', /writes to/],
    ['a path built from $HOME', () => 'echo x > $HOME/../escape.txt', /writes to/],
    ['a path only known at run time', () => `d=$(echo ${fixture}); rm -rf "$d"`, /./],
    ['a script piped into a shell', () => `echo "rm -rf ${fixture}" | bash`, /pipes text into a shell/],
    ['find -delete outside', () => `find ${fixture} -delete`, /deletes files under/],
    ['xargs feeding rm', () => `echo ${fixture} | xargs rm -rf`, /xargs reads from its input/],
    ['a fork bomb', () => ':(){ :|:& };:', /fork bomb/],
  ];

  it.each(attacks)('%s', async (_name, command, reason) => {
    const result = await run(command());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Command not run: /);
    expect(result.content).toMatch(reason);
    expect(existsSync(path.join(ws, 'link'))).toBe(false);
    expect(existsSync(path.join(ws, 'out'))).toBe(false);
  });
});

describe('execute_command contains what runs', () => {
  it('runs ordinary commands in the workspace', async () => {
    expect(await run('echo hi > note.txt && cat note.txt')).toEqual({ content: 'exit code 0\nhi\n' });
    expect(await readFile(path.join(ws, 'note.txt'), 'utf8')).toBe('hi\n');
    expect(await run('cd sub && pwd && cd .. && ls note.txt')).toEqual({
      content: `exit code 0\n${ws}/sub\nnote.txt\n`,
    });
  });

  it('shows a non-zero exit code and the output, without calling it a tool error', async () => {
    expect(await run('echo out; echo oops >&2; exit 3')).toEqual({ content: 'exit code 3\nout\noops\n' });
  });

  it('scrubs the environment: no secrets, HOME and TMPDIR in the workspace', async () => {
    const result = await run('env; echo "home=$HOME"; cd ~ && pwd');
    expect(result.isError).toBeUndefined();
    expect(result.content).not.toMatch(/FAKE_API_KEY|sk-fake|GITHUB_TOKEN|ghp_fake|DB_PASSWORD|hunter2/);
    expect(result.content).toContain(`HOME=${ws}\n`);
    expect(result.content).toContain(`TMPDIR=${ws}/.tmp\n`);
    expect(result.content).toContain(`home=${ws}\n`);
    expect(result.content.trimEnd().endsWith(ws)).toBe(true);
  });

  it('kills a command that never ends, promptly, with its whole process group', async () => {
    const started = Date.now();
    const result = await run('sleep 1000.4242', { timeout_seconds: 1 });
    expect(Date.now() - started).toBeLessThan(3_500);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^killed after 1s timeout\n/);
    expect(living('1000.4242')).toEqual([]);

    const loop = await run('sleep 1000.4343 & while true; do : 4343; done', { timeout_seconds: 1 });
    expect(loop.content).toMatch(/^killed after 1s timeout/);
    expect(living('1000.4343')).toEqual([]);
    expect(living(': 4343')).toEqual([]);
  });

  it('stops background processes when the command ends, even ones that left the process group', async () => {
    const started = Date.now();
    const result = await run('sleep 1000.5151 & (sleep 1000.5252 &) ; echo started');
    expect(result).toEqual({ content: 'exit code 0\nstarted\n' });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(living('1000.5')).toEqual([]);

    // Job control gives background jobs a process group of their own; setsid a session of their own.
    const escaped = await run(
      `set -m; sleep 1000.6161 & perl -MPOSIX -e 'setsid(); sleep 1000' 6262 & echo gone`,
    );
    expect(escaped.content).toBe('exit code 0\ngone\n');
    expect(living('1000.6161')).toEqual([]);
    expect(living('6262')).toEqual([]);
  });

  it('truncates a huge output without blocking or keeping it in memory', async () => {
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 10);
    const started = Date.now();
    const result = await run("head -c 100000000 /dev/zero | tr '\\0' a");
    clearInterval(sampler);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result.isError).toBeUndefined();
    expect(result.content).toMatch(/^exit code 0\naaaa/);
    expect(result.content).toMatch(/\[output truncated: \d+ of 100000000 bytes shown\]$/);
    expect(result.content.length).toBeLessThanOrEqual(5_000);
    // The whole output would be 100 MB (200 MB as a JavaScript string).
    expect(peak).toBeLessThan(60_000_000);
  });

  it('lets a call lower the time limit, never raise it', async () => {
    const strict = createCommandToolProvider({
      workspace: ws,
      checkPath: async (requested) => ({ allowed: true, realPath: requested }),
      timeoutMs: 1_000,
      env: { PATH: '/usr/bin:/bin' },
      mode: 'local',
    });
    const started = Date.now();
    const raised = await strict.call(
      'execute_command',
      { command: 'sleep 5', timeout_seconds: 100 },
      context(),
    );
    expect(raised.content).toMatch(/^killed after 1s timeout/);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await run('sleep 0.2 && echo done', { timeout_seconds: 5 })).content).toBe('exit code 0\ndone\n');
    await strict.close();
  });

  it('stops the command when the call is cancelled or the provider closes', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by the test')), 300);
    const started = Date.now();
    const cancelled = await run('sleep 1000.7171', {}, controller.signal);
    expect(cancelled.isError).toBe(true);
    expect(cancelled.content).toMatch(/^cancelled after/);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(living('1000.7171')).toEqual([]);

    const closing = createCommandToolProvider({
      workspace: ws,
      checkPath: async (requested) => ({ allowed: true, realPath: requested }),
      env: { PATH: '/usr/bin:/bin' },
      mode: 'local',
    });
    const pending = closing.call('execute_command', { command: 'sleep 1000.8181' }, context());
    await new Promise((resolve) => setTimeout(resolve, 200));
    await closing.close();
    expect((await pending).content).toMatch(/^cancelled after/);
    expect(living('1000.8181')).toEqual([]);
    expect(await closing.call('execute_command', { command: 'true' }, context())).toMatchObject({
      isError: true,
    });
  });
});
