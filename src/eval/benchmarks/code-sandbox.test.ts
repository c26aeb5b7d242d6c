/**
 * HumanEval's programs in real bubblewrap: a correct completion passes, a wrong one fails, one that
 * loops is stopped at the time limit, and one that reaches for the network, the host's files or the
 * token fails without touching them. Without a sandbox nothing runs at all.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSupport } from '../../tools/execute-command/sandbox-support.js';
import { findExecutable } from '../../util/find-executable.js';
import { createCodeSandbox, type CodeSandbox } from './code-sandbox.js';
import { extractCode, humanEvalProgram } from './extract.js';
import { humanEval } from './humaneval.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const support = sandboxSupport(process.env.PATH);
const python = findExecutable('python3', process.env.PATH);
const skip = !support.ok
  ? ` (skipped: ${support.reason})`
  : python === null
    ? ' (skipped: python3 is not on PATH)'
    : '';

/** HumanEval/53 as the dataset has it. */
const ADD = {
  task_id: 'HumanEval/53',
  prompt:
    'def add(x: int, y: int):\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\n',
  canonical_solution: '    return x + y\n',
  test: '\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import random\n\n    assert candidate(0, 1) == 1\n    assert candidate(1, 0) == 1\n    assert candidate(2, 3) == 5\n    assert candidate(5, 7) == 12\n    assert candidate(7, 5) == 12\n\n    for i in range(100):\n        x, y = random.randint(0, 1000), random.randint(0, 1000)\n        assert candidate(x, y) == x + y\n',
  entry_point: 'add',
};
const program = (response: string) => humanEvalProgram(ADD, extractCode(response));

describe.skipIf(skip !== '')(`HumanEval in the OS sandbox${skip}`, () => {
  let sandbox: CodeSandbox;
  let listener: Server;
  let port = 0;
  let connections = 0;
  let outside = '';
  let home = '';
  beforeAll(async () => {
    outside = mkdtempSync(path.join('/var/tmp', 'massgen-humaneval-outside-'));
    // A home of its own outside /tmp (the sandbox's /tmp is private anyway), with a secret in it.
    home = mkdtempSync(path.join('/var/tmp', 'massgen-humaneval-home-'));
    writeFileSync(path.join(home, 'secret.txt'), 'hf_SECRET');
    sandbox = createCodeSandbox(
      { PATH: process.env.PATH, HOME: home, HF_TOKEN: 'hf_SECRET' },
      { timeoutMs: 5_000 },
    );
    listener = createServer(() => connections++);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    rmSync(outside, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  it('a correct completion passes, the whole function or its body; a wrong one fails with its error', async () => {
    expect(await sandbox.run(program('```python\ndef add(x, y):\n    return x + y\n```'))).toEqual({
      passed: true,
      outcome: 'passed',
    });
    expect(await sandbox.run(program('    return x + y\n'))).toEqual({ passed: true, outcome: 'passed' });
    const wrong = await sandbox.run(program('def add(x, y):\n    return x - y\n'));
    expect(wrong.passed).toBe(false);
    expect(wrong.outcome).toMatch(/^exit code 1: AssertionError$/);
    const broken = await sandbox.run(program('def add(x, y)\n    return x + y\n'));
    expect(broken.outcome).toMatch(/^exit code 1: SyntaxError/);
  }, 60_000);

  it('a completion that never ends is stopped at the time limit', async () => {
    const run = await sandbox.run(program('def add(x, y):\n    while True:\n        pass\n'));
    expect(run).toEqual({ passed: false, outcome: 'timed out after 5 s' });
  }, 60_000);

  it('a completion that reaches for the network fails, and nothing arrives', async () => {
    const code = `def add(x, y):\n    import socket\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2).close()\n    return x + y\n`;
    const run = await sandbox.run(program(code));
    expect(run.passed).toBe(false);
    expect(run.outcome).toMatch(/OSError|ConnectionRefusedError|Network is unreachable/);
    expect(connections).toBe(0);
  }, 60_000);

  it('a completion that writes outside /tmp fails — its own folder too — and the host is untouched', async () => {
    const target = path.join(outside, 'pwned.txt');
    const code = `def add(x, y):\n    open(${JSON.stringify(target)}, "w").write("pwned")\n    return x + y\n`;
    const run = await sandbox.run(program(code));
    expect(run.passed).toBe(false);
    expect(run.outcome).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(target)).toBe(false);
    const own = await sandbox.run(
      program('def add(x, y):\n    open("out.txt", "w").write("x")\n    return x + y\n'),
    );
    expect(own.outcome).toMatch(/Read-only file system/);
    const scratch = await sandbox.run(
      program('def add(x, y):\n    open("/tmp/scratch.txt", "w").write("x")\n    return x + y\n'),
    );
    expect(scratch).toEqual({ passed: true, outcome: 'passed' });
  }, 60_000);

  it('the token and the home are out of reach', async () => {
    const token = await sandbox.run(
      program('def add(x, y):\n    import os\n    return x + y if "HF_TOKEN" in os.environ else 0\n'),
    );
    expect(token.passed).toBe(false);
    const secret = path.join(home, 'secret.txt');
    const peek = await sandbox.run(
      program(`def add(x, y):\n    return x + y if open(${JSON.stringify(secret)}).read() else 0\n`),
    );
    expect(peek.outcome).toMatch(/FileNotFoundError/);
    expect(peek.passed).toBe(false);
  }, 60_000);

  it('the benchmark scorer grades through the sandbox', async () => {
    const rows = new Map([['humaneval-53', ADD]]);
    const scorer = await humanEval.scorer(rows, {
      env: { PATH: process.env.PATH, HOME: os.homedir() },
      codeTimeoutMs: 5_000,
    });
    const item = {
      id: 'humaneval-53',
      prompt: '',
      question: '',
      answer: 'HumanEval/53',
      attachments: [],
      line: 53,
    };
    const right = 'Sure:\n```python\ndef add(x: int, y: int):\n    return x + y\n```';
    expect(await scorer.score(right, item)).toEqual({
      correct: true,
      extracted: 'def add(x: int, y: int):\n    return x + y\n',
      reason: 'passed',
    });
    expect(await scorer.score('```python\ndef add(x, y):\n    return 0\n```', item)).toMatchObject({
      correct: false,
      reason: 'exit code 1: AssertionError',
    });
    expect(scorer.key(right, item)).toBe(scorer.key(`${right}\n\nHope it helps.`, item));
  }, 60_000);
});

describe('without a sandbox', () => {
  it('nothing runs: the scorer refuses to start, naming what is missing', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'massgen-nopath-'));
    try {
      expect(() => createCodeSandbox({ PATH: empty }, { timeoutMs: 1000 })).toThrow(
        /^HumanEval runs the answers' code only in massgen's OS sandbox, and bubblewrap \(bwrap\) is not installed$/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

const TEST_USER = 'massgen-test';
const isRoot = process.getuid?.() === 0;
/** The unprivileged user (made by the sandbox-hardening tests), or why the second run is skipped. */
function unprivileged(): { uid: number; gid: number } | { skip: string } {
  if (!isRoot) return { skip: 'the tests already run as an unprivileged user' };
  if (skip !== '') return { skip: skip.replace(/^ \(skipped: |\)$/g, '') };
  const id = (flag: string) => spawnSync('id', [flag, TEST_USER], { encoding: 'utf8' });
  if (id('-u').status !== 0)
    return { skip: `no user ${TEST_USER} (test/security/sandbox-hardening.test.ts makes it)` };
  if (!existsSync('/usr/bin/python3')) return { skip: '/usr/bin/python3 is missing' };
  return { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
}
const user = unprivileged();

describe('as an unprivileged user', () => {
  it.skipIf('skip' in user)(
    `the same programs pass, fail, stop and stay inside${'skip' in user ? ` (skipped: ${user.skip})` : ''}`,
    () => {
      const { uid, gid } = user as { uid: number; gid: number };
      const home = mkdtempSync(path.join('/var/tmp', 'massgen-humaneval-user-'));
      // A folder the user may write to on the host: in the sandbox it is read-only.
      const outsideDir = path.join(home, 'outside');
      mkdirSync(outsideDir);
      chownSync(home, uid, gid);
      chownSync(outsideDir, uid, gid);
      const target = path.join(outsideDir, 'pwned.txt');
      try {
        const programs = [
          program('def add(x, y):\n    return x + y\n'),
          program('def add(x, y):\n    return 0\n'),
          program('def add(x, y):\n    while True:\n        pass\n'),
          program(`def add(x, y):\n    open(${JSON.stringify(target)}, "w").write("x")\n    return x + y\n`),
        ];
        const run = spawnSync(
          'setpriv',
          [
            `--reuid=${uid}`,
            `--regid=${gid}`,
            '--clear-groups',
            '--',
            path.join(REPO, 'node_modules/.bin/tsx'),
            path.join(import.meta.dirname, 'code-sandbox-driver.test-support.ts'),
            JSON.stringify({ timeoutMs: 5_000, programs }),
          ],
          {
            cwd: REPO,
            encoding: 'utf8',
            env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: path.join(home, 'home') },
            timeout: 120_000,
          },
        );
        expect(run.stderr).toBe('');
        const runs = JSON.parse(run.stdout) as { passed: boolean; outcome: string }[];
        expect(runs.map((r) => r.passed)).toEqual([true, false, false, false]);
        expect(runs[1]!.outcome).toBe('exit code 1: AssertionError');
        expect(runs[2]!.outcome).toBe('timed out after 5 s');
        expect(runs[3]!.outcome).toMatch(/Read-only file system/);
        expect(existsSync(target)).toBe(false);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
