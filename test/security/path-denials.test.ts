/**
 * What no tool may read, through the built CLI with the real OS sandbox: a `deny` rule on paths over a
 * read context path holds for every tool and every spelling — a shell command, a symbolic link made
 * inside the sandbox and then read with read_file, copy_file of the file or of a folder around it —
 * and the `.env` files massgen loaded its keys from stay empty inside the sandbox even where the
 * project is visible (outside the home, outside /tmp). Run as the test's own user (root in CI) and,
 * when that is root, again as an unprivileged user (`setpriv`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/logging/permission-ledger.js';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import {
  agentEntry,
  CLI_BIN,
  logDirs,
  persona,
  runCli,
  scriptedCalls,
  useFakeServer,
  writeConfig,
} from '../e2e/cli-harness.js';

const fake = useFakeServer();
const support = sandboxSupport(process.env.PATH);
const isRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };

/** What the model read back, call by call (from the last request, which carries every result). */
const toolResults = (): string[] => {
  const body = fake.server.requests.at(-1)?.body as FakeChatRequestBody;
  return (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
};

/** Whether `setpriv` can run the built CLI as nobody here (root only; the folders are handed over). */
const nobodyReason = !isRoot
  ? 'the tests already run as an unprivileged user'
  : spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'test', '-r', CLI_BIN])
        .status === 0
    ? null
    : 'setpriv cannot run the CLI as nobody here';

const runners = [
  { who: isRoot ? 'root' : `uid ${process.getuid?.()}`, user: undefined, skip: null },
  { who: 'an unprivileged user (nobody, via setpriv)', user: NOBODY, skip: nobodyReason },
] as const;

const sandboxSkip = support.ok ? null : `${support.reason} — ${support.hint}`;

/** A folder that the sandbox shows (not under /tmp, which is private there, nor the home). */
function visibleFolder(): string {
  const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/massgen-denials-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** One agent with a workspace and `execute_command` in the OS sandbox, and `extra` team settings. */
function oneAgent(cwd: string, extra: Record<string, unknown>): void {
  writeConfig(cwd, {
    agents: [
      agentEntry('a', fake.server.url, {
        system_message: persona('a'),
        backend: { cwd: 'ws_a', enable_code_execution: true, execution_mode: 'sandbox' },
      }),
    ],
    ...extra,
  });
}

/** The built CLI on `cwd`'s config, as `user` (or the test's own), with a home of its own inside `cwd`. */
function runAs(
  user: { uid: number; gid: number } | undefined,
  cwd: string,
  question: string,
  env: Record<string, string> = {},
) {
  return runCli(['--config', 'config.yaml', '--automation', question], {
    cwd,
    env: { HOME: path.join(cwd, 'home'), ...env },
    timeoutMs: 120_000,
    ...(user ? { user } : {}),
  });
}

/** Gives the whole tree to `user` (the run writes its workspace and logs there). */
function handOver(dir: string, user: { uid: number; gid: number } | undefined): void {
  if (!user) return;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
    fs.lchownSync(path.join(entry.parentPath, entry.name), user.uid, user.gid);
  fs.chownSync(dir, user.uid, user.gid);
}

describe.each(runners)('what no tool may read, run by $who', ({ user, skip }) => {
  const why = sandboxSkip ?? skip;
  const skipped = why === null ? '' : ` (skipped: ${why})`;

  it.skipIf(why !== null)(
    `a deny rule on paths holds for commands, links made in the sandbox and copies${skipped}`,
    async () => {
      const root = visibleFolder();
      try {
        const cwd = path.join(root, 'project');
        const context = path.join(root, 'shared');
        const key = `KEY-${process.pid}-${Date.now()}-f00dfeed`;
        fs.mkdirSync(path.join(context, 'secrets'), { recursive: true });
        fs.mkdirSync(path.join(cwd, 'home'), { recursive: true });
        fs.writeFileSync(path.join(context, 'secrets', 'key.txt'), `${key}\n`, { mode: 0o644 });
        fs.writeFileSync(path.join(context, '.env'), `PLAIN_SETTING=${key}-env\n`, { mode: 0o644 });
        fs.writeFileSync(path.join(context, 'readme.md'), 'shared notes\n');
        const secret = path.join(context, 'secrets', 'key.txt');
        fake.server.setHandler(
          scriptedCalls([
            { name: 'read_file', arguments: { path: secret } },
            {
              name: 'execute_command',
              arguments: { command: `cat ${secret}; cat ${context}/.env; echo end` },
            },
            {
              name: 'execute_command',
              arguments: { command: `ln -s ${context}/secrets s && ln -s ${secret} k` },
            },
            { name: 'read_file', arguments: { path: 's/key.txt' } },
            { name: 'read_file', arguments: { path: 'k' } },
            { name: 'copy_file', arguments: { source: secret, destination: 'copied-key.txt' } },
            { name: 'copy_file', arguments: { source: context, destination: 'copy' } },
            { name: 'read_file', arguments: { path: 'copy/secrets/key.txt' } },
            {
              name: 'execute_command',
              arguments: { command: 'cat copy/secrets/key.txt copy/.env s/key.txt k; ls -A copy' },
            },
            { name: 'list_directory', arguments: { path: 's' } },
            { name: 'read_file', arguments: { path: `${context}/readme.md` } },
          ]),
        );
        oneAgent(cwd, {
          orchestrator: { context_paths: [{ path: context, permission: 'read' }] },
          permissions: [{ deny: '*', path: ['.env', 'secrets/**'], reason: 'credentials stay put' }],
        });
        handOver(root, user);
        const result = await runAs(user, cwd, 'Find the key.');
        expect(result.stderr).not.toContain(key);
        expect(result.code, result.stderr).toBe(0);
        const results = toolResults();
        expect(results).toHaveLength(11);
        for (const text of results) expect(text).not.toContain(key);
        const [direct, cat, links, viaDir, viaFile, copyOne, copyAll, copied, shell, list, readme] = results;
        expect(direct).toMatch(/denied by permission rule permissions\[0\]/);
        // A denied folder is empty in the sandbox; a denied file is /dev/null, which it cannot open.
        // (stdout's "end" and cat's stderr arrive on two pipes: their order is the machine's, not ours.)
        expect(cat).toMatch(/secrets\/key\.txt: No such file or directory\n/);
        expect(cat).toMatch(/\.env: Permission denied\n/);
        expect(cat).toMatch(/^end$/m);
        expect(links).toMatch(/^exit code 0/);
        for (const text of [viaDir, viaFile, copyOne, list])
          expect(text).toMatch(/permission rule permissions\[0\] \(deny \* path=\.env\|secrets\/\*\*\)/);
        expect(copyAll).toMatch(/left out 2 files or folders that no tool may read/);
        expect(copied).toMatch(/does not exist/);
        expect(shell).toMatch(/No such file or directory/);
        expect(readme).toContain('shared notes');
        // Nothing of the key landed in the workspace either.
        const workspace = path.join(cwd, '.massgen', 'workspaces', 'ws_a');
        for (const entry of fs.readdirSync(workspace, { recursive: true, withFileTypes: true })) {
          if (!entry.isFile()) continue;
          expect(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8')).not.toContain(key);
        }
        // The rules engine names the rule for what it sees (a name, or where a link leads).
        const ledger = fs
          .readFileSync(path.join(logDirs(cwd)[0]!, 'permissions.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as LedgerEntry);
        expect(ledger.map((e) => [e.tool, e.decision, e.by, e.rule?.label ?? null])).toEqual([
          ['read_file', 'deny', 'rule', 'permissions[0]'],
          ['execute_command', 'allow', 'default', null],
          ['execute_command', 'allow', 'default', null],
          ['read_file', 'deny', 'rule', 'permissions[0]'],
          ['read_file', 'deny', 'rule', 'permissions[0]'],
          ['copy_file', 'deny', 'rule', 'permissions[0]'],
          ['copy_file', 'allow', 'default', null],
          ['read_file', 'allow', 'default', null],
          ['execute_command', 'allow', 'default', null],
          ['list_directory', 'deny', 'rule', 'permissions[0]'],
          ['read_file', 'allow', 'default', null],
        ]);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  );

  const noGit = spawnSync('git', ['--version']).status === 0 ? null : 'git is not installed';
  it.skipIf(why !== null || noGit !== null)(
    `with write_mode: worktree, the rule holds in the agent's checkout and in the user's folder${skipped || (noGit ? ` (skipped: ${noGit})` : '')}`,
    async () => {
      const root = visibleFolder();
      try {
        const cwd = path.join(root, 'project');
        const key = `KEY-${process.pid}-${Date.now()}-c0ffee`;
        fs.mkdirSync(path.join(cwd, 'secrets'), { recursive: true });
        fs.mkdirSync(path.join(cwd, 'home'), { recursive: true });
        fs.writeFileSync(path.join(cwd, 'secrets', 'key.txt'), `${key}\n`, { mode: 0o644 });
        fs.writeFileSync(path.join(cwd, 'app.txt'), 'the app\n');
        fake.server.setHandler(
          scriptedCalls([
            {
              name: 'execute_command',
              arguments: {
                command: `cat ${cwd}/secrets/key.txt; find ${cwd}/.massgen -name key.txt -exec cat {} +; find ${cwd}/.massgen -name app.txt | grep -c app.txt`,
              },
            },
          ]),
        );
        oneAgent(cwd, {
          orchestrator: { context_paths: [{ path: '.', permission: 'write', write_mode: 'worktree' }] },
          permissions: [{ deny: '*', path: 'secrets/**' }],
        });
        handOver(root, user);
        const result = await runAs(user, cwd, 'Find the key.');
        expect(result.code, result.stderr).toBe(0);
        const [shell] = toolResults();
        expect(shell).not.toContain(key);
        // The checkout is there (its app.txt is found once), its secrets/ empty. cat's complaint (stderr)
        // and grep's count (stdout) come through two pipes, so their order in the result is not fixed:
        // under load the count was read first.
        expect(shell).toMatch(/secrets\/key\.txt: No such file or directory\n/);
        expect(shell).toMatch(/^1$/m);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(why !== null)(
    `the .env files massgen loaded are empty in the sandbox, whatever reads them${skipped}`,
    async () => {
      const root = visibleFolder();
      try {
        const cwd = path.join(root, 'project');
        const xdg = path.join(root, 'xdg');
        const value = `hunter2-${process.pid}-${Date.now()}`;
        fs.mkdirSync(path.join(cwd, 'home'), { recursive: true });
        fs.mkdirSync(path.join(xdg, 'massgen'), { recursive: true });
        // Names that do not look secret: the scrubber does not know them.
        fs.writeFileSync(path.join(cwd, '.env'), `PLAIN_SETTING=${value}-project\n`, { mode: 0o644 });
        fs.writeFileSync(path.join(xdg, 'massgen', '.env'), `OTHER_SETTING=${value}-user\n`, { mode: 0o644 });
        const files = [path.join(cwd, '.env'), path.join(xdg, 'massgen', '.env')];
        const readers = ['cat', 'base64', 'rev', 'od -c'];
        fake.server.setHandler(
          scriptedCalls([
            ...readers.map((reader) => ({
              name: 'execute_command',
              arguments: { command: `${reader} ${files.join(' ')}; wc -c ${files.join(' ')}` },
            })),
            { name: 'read_file', arguments: { path: files[0] } },
          ]),
        );
        // The project is a context path: read_file could reach its .env otherwise.
        oneAgent(cwd, { orchestrator: { context_paths: [{ path: cwd, permission: 'read' }] } });
        handOver(root, user);
        const result = await runAs(user, cwd, 'Show the settings.', { XDG_CONFIG_HOME: xdg });
        expect(result.code, result.stderr).toBe(0);
        const results = toolResults();
        expect(results).toHaveLength(readers.length + 1);
        const traces = [
          value,
          Buffer.from(value).toString('base64').slice(0, 12),
          [...value].reverse().join(''),
        ];
        for (const text of results) for (const trace of traces) expect(text).not.toContain(trace);
        for (const text of results.slice(0, readers.length)) expect(text).toMatch(/\b0 total\n/);
        expect(results.at(-1)).toMatch(/is a \.env file massgen loaded keys from; no tool may use it/);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
