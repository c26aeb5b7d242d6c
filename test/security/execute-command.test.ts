/**
 * Attacks on `execute_command`, run with real bash on real temporary folders. In the OS sandbox
 * (real bubblewrap) every escape must be stopped by the kernel while it runs — not guessed at before —
 * and the fixture tree outside the workspace must be byte-for-byte unchanged afterwards. Runaway
 * commands must be killed promptly with everything they started, and huge output must neither block
 * nor fill memory.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createCommandToolProvider,
  homeLayout,
  sandboxSupport,
  type SandboxLayout,
} from '../../src/tools/execute-command/index.js';
import { treeChecksum } from '../../src/tools/filesystem/filesystem.test-support.js';
import type { ToolProvider } from '../../src/tools/tool-provider.js';
import type { ToolContext, ToolResult } from '../../src/types/tool.js';
import { waitUntil } from '../support/wait.js';

let root: string;
let ws: string;
let fixture: string;
let baseline: string;
let rootListing: string[];
let fakeHome: string;
let writeContext: string;
let provider: ToolProvider;
let sandboxed: ToolProvider | null = null;
let server: Server;
let serverUrl: string;
const support = sandboxSupport(process.env.PATH);
const hasCompiler = spawnSync('sh', ['-c', 'command -v cc']).status === 0;
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

/** Runs `command` in the sandbox (in `phase`, through `through` when given). */
function jailed(
  command: string,
  phase: ToolContext['phase'] = 'coordination',
  through: ToolProvider | null = sandboxed,
): Promise<ToolResult> {
  return through!.call('execute_command', { command }, { ...context(), phase });
}

/** The sandbox the app builds for an agent: the fixture is a `read` context path, `writeContext` a `write` one. */
function layout(phase: ToolContext['phase'], network = false): SandboxLayout {
  const home = homeLayout(process.env);
  const writable = phase === 'presentation' ? [writeContext] : [];
  return {
    workspace: ws,
    readOnly: [
      ...home.readOnly,
      fixture,
      ...(writable.length ? [] : [writeContext]),
      path.join(writeContext, 'protected'),
    ],
    writable,
    hidden: [...home.hidden, fakeHome],
    network,
  };
}

function sandboxProvider(network = false): ToolProvider {
  if (!support.ok) throw new Error(support.reason);
  return createCommandToolProvider({
    workspace: ws,
    // A bound for a hung command only: a busy machine takes seconds where an idle one takes milliseconds.
    timeoutMs: 60_000,
    maxOutputChars: 5_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: fakeHome,
      FAKE_API_KEY: 'sk-fake-123',
    },
    mode: 'sandbox',
    sandbox: { bwrap: support.bwrap, layout: (phase) => layout(phase, network) },
  });
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
  fakeHome = path.join(root, 'home');
  await mkdir(path.join(fakeHome, '.ssh'), { recursive: true });
  await writeFile(path.join(fakeHome, '.ssh', 'id_rsa'), '-----BEGIN FAKE KEY-----\n');
  writeContext = path.join(fixture, 'project');
  await mkdir(path.join(writeContext, 'protected'), { recursive: true });
  await writeFile(path.join(writeContext, 'protected', 'keep.txt'), 'keep\n');
  server = createServer((_req, res) => res.end('reached the host'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  baseline = await treeChecksum(fixture);
  rootListing = (await readdir(root)).sort();
  provider = createCommandToolProvider({
    workspace: ws,
    timeoutMs: 60_000,
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
  if (support.ok) sandboxed = sandboxProvider();
});

afterEach(async (test) => {
  // The presenter's write into the write context path is the one change allowed (and undone there).
  if (test.task.name.includes('writable for the presenter')) return;
  expect(await treeChecksum(fixture)).toBe(baseline);
  expect((await readdir(root)).sort()).toEqual(rootListing);
  // What the attacks would create at the filesystem root.
  expect(SLASH_NAMES.filter((name) => existsSync(path.join('/', name)))).toEqual(slashBefore);
});

afterAll(async () => {
  await provider.close();
  await sandboxed?.close();
  server.close();
  await rm(root, { recursive: true, force: true });
});

const skipReason = support.ok ? '' : ` — skipped: ${support.reason} (${support.hint})`;

describe.skipIf(!support.ok)(`execute_command in the OS sandbox${skipReason}`, () => {
  const escapes: [string, () => string][] = [
    ['python3 -c writes outside', () => `python3 -c "open('${fixture}/x', 'w').write('pwned')"`],
    ['node -e writes outside', () => `node -e "require('fs').writeFileSync('${fixture}/x', 'pwned')"`],
    ['a symlink made by ln -s, then written through', () => `ln -s ${fixture} link; echo pwned > link/f`],
    ['a planted link written through', () => 'echo pwned > planted/f'],
    [
      'a symlink made by git checkout-index, then written through',
      () =>
        `git init -q . && git update-index --add --cacheinfo 120000,$(printf '${fixture}/secret.txt' | git hash-object -w --stdin),pw && git checkout-index pw && echo pwned > pw`,
    ],
    ['rm -rf of a read-only folder', () => `rm -rf ${fixture}`],
    ['a delete hidden in $(…)', () => `echo $(rm -rf ${fixture}/nested) > out`],
    ['a script piped into a shell', () => `echo "echo pwned > ${fixture}/secret.txt" | bash`],
    ['find -delete', () => `find ${fixture} -delete`],
    ...(hasCompiler
      ? ([
          [
            'a compiled program',
            () =>
              `printf '#include <stdio.h>\\nint main(){if(!fopen("${fixture}/x","w")){perror("fopen");return 1;}return 0;}' > c.c && cc c.c -o c && ./c`,
          ],
        ] as [string, () => string][])
      : []),
  ];

  it.each(escapes)('%s: the kernel refuses, nothing changes outside', async (_name, command) => {
    const result = await jailed(command());
    expect(result.content).toMatch(/^exit code \d+ \(sandbox\)\n/);
    expect(result.content).toMatch(/Read-only file system|EROFS/);
    expect(existsSync(path.join(fixture, 'x'))).toBe(false);
    await rm(path.join(ws, 'link'), { force: true });
    await rm(path.join(ws, '.git'), { recursive: true, force: true });
    await rm(path.join(ws, 'pw'), { force: true });
  });

  it("sh -c 'cd ..; …' writes only into the sandbox's private view, never the real folder", async () => {
    const result = await jailed(
      "sh -c 'cd ..; echo pwned > escape.txt; cd /tmp && echo pwned > escape.txt; ls'",
    );
    expect(result.content).toMatch(/^exit code 0 \(sandbox\)/);
    expect(existsSync(path.join(root, 'escape.txt'))).toBe(false);
    expect(existsSync(path.join(tmpdir(), 'escape.txt'))).toBe(false);
  });

  it('cannot read a secret outside, the fake ~/.ssh/id_rsa or anything else in the home folder', async () => {
    await writeFile(path.join(root, 'outside-secret.txt'), 'top secret\n');
    const result = await jailed(
      `cat ${root}/outside-secret.txt; cat ${fakeHome}/.ssh/id_rsa; cat ~/.ssh/id_rsa; ls -A ${fakeHome}`,
    );
    expect(result.content).not.toMatch(/top secret|BEGIN FAKE KEY|^\.ssh$/m);
    expect(result.content).toMatch(/No such file or directory/);
    await rm(path.join(root, 'outside-secret.txt'));
    // The environment is scrubbed as in every mode.
    expect((await jailed('env')).content).not.toContain('sk-fake-123');
  });

  it('reaches a loopback server on the host only when network is on', async () => {
    const fetchCommand = `node -e "fetch('${serverUrl}').then(r => r.text()).then(console.log, e => { console.log('unreachable', e.cause?.code ?? e.message); process.exit(7); })"`;
    const offline = await jailed(fetchCommand);
    expect(offline.content).toMatch(/^exit code 7 \(sandbox\)\nunreachable/);
    expect(offline.content).not.toContain('reached the host');
    const online = sandboxProvider(true);
    expect((await jailed(fetchCommand, 'coordination', online)).content).toBe(
      'exit code 0 (sandbox)\nreached the host\n',
    );
    await online.close();
  });

  it('does ordinary work: python writes in the workspace, npm test runs a project copied in', async () => {
    expect(await jailed(`python3 -c "open('made.txt', 'w').write('ok')" && cat made.txt`)).toEqual({
      content: 'exit code 0 (sandbox)\nok',
    });
    await mkdir(path.join(ws, 'project'), { recursive: true });
    await writeFile(
      path.join(ws, 'project', 'package.json'),
      JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node test.js' } }),
    );
    await writeFile(
      path.join(ws, 'project', 'test.js'),
      "require('fs').writeFileSync('result.txt', 'passed'); console.log('1 passed');\n",
    );
    const npm = await jailed('cd project && npm test --silent --no-update-notifier');
    expect(npm.content).toBe('exit code 0 (sandbox)\n1 passed\n');
    expect(await readFile(path.join(ws, 'project', 'result.txt'), 'utf8')).toBe('passed');
  });

  it('keeps a write context path read-only during coordination; it is writable for the presenter, its protected path never', async () => {
    const target = path.join(writeContext, 'out.txt');
    const coordinating = await jailed(`echo draft > ${target}`);
    expect(coordinating.content).toMatch(/^exit code 1 \(sandbox\)\n.*Read-only file system/);
    expect(coordinating.content).toMatch(/\[This command runs in a sandbox: only .* is writable/);
    expect(existsSync(target)).toBe(false);
    const presenting = await jailed(`echo final > ${target} && cat ${target}`, 'presentation');
    expect(presenting).toEqual({ content: 'exit code 0 (sandbox)\nfinal\n' });
    const shielded = await jailed(`echo pwned > ${writeContext}/protected/keep.txt`, 'presentation');
    expect(shielded.content).toMatch(/Read-only file system/);
    expect(await readFile(path.join(writeContext, 'protected', 'keep.txt'), 'utf8')).toBe('keep\n');
    await rm(target);
    expect(await treeChecksum(fixture)).toBe(baseline);
  });

  it('ends background children, even ones that started their own session, with the command', async () => {
    const result = await jailed(
      `sleep 1000.9191 & (sleep 1000.9292 &); setsid sleep 1000.9393 & nohup sleep 1000.9494 >/dev/null 2>&1 & echo started`,
    );
    expect(result).toEqual({ content: 'exit code 0 (sandbox)\nstarted\n' });
    expect(living('1000.9')).toEqual([]);
  });

  it('still refuses the deny-listed commands, with a friendly reason', async () => {
    for (const command of ['rm -rf /', 'rm -fr ~', 'sudo ls', ':(){ :|:& };:', 'mkfs.ext4 /dev/sda1']) {
      const result = await jailed(command);
      expect(result.isError, command).toBe(true);
      expect(result.content).toMatch(/^Command not run: /);
    }
  });
});

describe('execute_command contains what runs', () => {
  it('runs ordinary commands in the workspace', async () => {
    expect(await run('echo hi > note.txt && cat note.txt')).toEqual({ content: 'exit code 0 (local)\nhi\n' });
    expect(await readFile(path.join(ws, 'note.txt'), 'utf8')).toBe('hi\n');
    expect(await run('cd sub && pwd && cd .. && ls note.txt')).toEqual({
      content: `exit code 0 (local)\n${ws}/sub\nnote.txt\n`,
    });
  });

  it('shows a non-zero exit code and the output, without calling it a tool error', async () => {
    expect(await run('echo out; echo oops >&2; exit 3')).toEqual({
      content: 'exit code 3 (local)\nout\noops\n',
    });
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

  // No elapsed-time bounds below: a command that is not stopped runs for 1000 s, so the outcome (and the
  // test's own timeout) tells, and a loaded machine stays green.
  it('kills a command that never ends, with its whole process group', async () => {
    const result = await run('sleep 1000.4242', { timeout_seconds: 1 });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^killed after 1s timeout\n/);
    expect(living('1000.4242')).toEqual([]);

    const loop = await run('sleep 1000.4343 & while true; do : 4343; done', { timeout_seconds: 1 });
    expect(loop.content).toMatch(/^killed after 1s timeout/);
    expect(living('1000.4343')).toEqual([]);
    expect(living(': 4343')).toEqual([]);
  });

  it('stops background processes when the command ends, even ones that left the process group', async () => {
    const result = await run('sleep 1000.5151 & (sleep 1000.5252 &) ; echo started');
    expect(result).toEqual({ content: 'exit code 0 (local)\nstarted\n' });
    expect(living('1000.5')).toEqual([]);

    // Job control gives background jobs a process group of their own; setsid a session of their own.
    const escaped = await run(
      `set -m; sleep 1000.6161 & perl -MPOSIX -e 'setsid(); sleep 1000' 6262 & echo gone`,
    );
    expect(escaped.content).toBe('exit code 0 (local)\ngone\n');
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
    const result = await run("head -c 100000000 /dev/zero | tr '\\0' a");
    clearInterval(sampler);
    expect(result.isError).toBeUndefined();
    expect(result.content).toMatch(/^exit code 0 \(local\)\naaaa/);
    expect(result.content).toMatch(/\[output truncated: \d+ of 100000000 bytes shown\]$/);
    expect(result.content.length).toBeLessThanOrEqual(5_000);
    // The whole output would be 100 MB (200 MB as a JavaScript string).
    expect(peak).toBeLessThan(60_000_000);
  });

  it('lets a call lower the time limit, never raise it', async () => {
    const strict = createCommandToolProvider({
      workspace: ws,
      timeoutMs: 1_000,
      env: { PATH: '/usr/bin:/bin' },
      mode: 'local',
    });
    const raised = await strict.call(
      'execute_command',
      { command: 'sleep 1000', timeout_seconds: 100 },
      context(),
    );
    expect(raised.content).toMatch(/^killed after 1s timeout/);
    expect((await run('sleep 0.2 && echo done', { timeout_seconds: 60 })).content).toBe(
      'exit code 0 (local)\ndone\n',
    );
    await strict.close();
  });

  it('stops the command when the call is cancelled or the provider closes', async () => {
    const controller = new AbortController();
    // Cancelled once it runs: what is tested is stopping a running command.
    const running = run('sleep 1000.7171', {}, controller.signal);
    await waitUntil(() => living('1000.7171').length > 0, 'the command to run');
    controller.abort(new Error('cancelled by the test'));
    const cancelled = await running;
    expect(cancelled.isError).toBe(true);
    expect(cancelled.content).toMatch(/^cancelled after/);
    expect(living('1000.7171')).toEqual([]);

    const closing = createCommandToolProvider({
      workspace: ws,
      env: { PATH: '/usr/bin:/bin' },
      mode: 'local',
    });
    const pending = closing.call('execute_command', { command: 'sleep 1000.8181' }, context());
    await waitUntil(() => living('1000.8181').length > 0, 'the command to run');
    await closing.close();
    expect((await pending).content).toMatch(/^cancelled after/);
    expect(living('1000.8181')).toEqual([]);
    expect(await closing.call('execute_command', { command: 'true' }, context())).toMatchObject({
      isError: true,
    });
  });
});
