/**
 * The OS sandbox must hold whoever runs massgen: run with real bubblewrap as the test's own user (root
 * in CI) and, when that is root, again as an unprivileged user (created here if missing, the commands
 * run by `sandbox-driver.ts` under `setpriv`). Inside, a command has no capabilities, cannot mount,
 * unmount or enter the host's namespaces, sees only its own processes, no unix socket of the machine,
 * no more of the home than a PATH entry, and is stopped at a bound of processes and bytes written.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  homeLayout,
  memoryBound,
  processBound,
  sandboxSupport,
  type SandboxLayout,
} from '../../src/tools/execute-command/index.js';
import type { ToolResult } from '../../src/types/tool.js';
import { type DriverInput, runInSandbox } from './sandbox-driver.js';

const support = sandboxSupport(process.env.PATH);
const isRoot = process.getuid?.() === 0;
const TEST_USER = 'massgen-test';
const REPO = path.resolve(import.meta.dirname, '../..');
const MIB = 1024 * 1024;
/** Generous: a limit that does not hold shows as the command's own outcome (its 60 s timeout), not this. */
const TEST_TIMEOUT_MS = 120_000;
const tag = `${process.pid}${Date.now() % 10_000}`;

/** The unprivileged user the second run uses (root only): created if missing, or why not. */
function unprivilegedUser(): { uid: number; gid: number } | { skip: string } {
  if (!isRoot) return { skip: 'the tests already run as an unprivileged user' };
  const id = (flag: string) => spawnSync('id', [flag, TEST_USER], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const made = spawnSync(
      'useradd',
      ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', TEST_USER],
      { encoding: 'utf8' },
    );
    if (made.status !== 0)
      return { skip: `cannot create user ${TEST_USER}: ${made.stderr || made.error?.message}` };
  }
  const user = { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
  const reach = spawnSync('setpriv', [
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--',
    'test',
    '-r',
    path.join(REPO, 'node_modules/.bin/tsx'),
  ]);
  return reach.status === 0 ? user : { skip: `${TEST_USER} cannot read ${REPO} (or setpriv is missing)` };
}

interface Runner {
  who: string;
  skip: string | null;
  owner: { uid: number; gid: number } | null;
  run(input: DriverInput): Promise<ToolResult[]>;
}

const user = unprivilegedUser();
const runners: Runner[] = [
  { who: isRoot ? 'root' : `uid ${process.getuid?.()}`, skip: null, owner: null, run: runInSandbox },
  {
    who: `an unprivileged user (${TEST_USER}, via setpriv)`,
    skip: 'skip' in user ? user.skip : null,
    owner: 'skip' in user ? null : user,
    run: (input) =>
      new Promise((resolve, reject) => {
        const { uid, gid } = user as { uid: number; gid: number };
        execFile(
          'setpriv',
          [
            `--reuid=${uid}`,
            `--regid=${gid}`,
            '--clear-groups',
            '--',
            path.join(REPO, 'node_modules/.bin/tsx'),
            path.join(import.meta.dirname, 'sandbox-driver.ts'),
            JSON.stringify(input),
          ],
          {
            cwd: REPO,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: input.env.HOME! },
            maxBuffer: 16 * MIB,
          },
          (error, stdout, stderr) =>
            error
              ? reject(new Error(`${error.message}\n${stderr}`))
              : resolve(JSON.parse(stdout) as ToolResult[]),
        );
      }),
  },
];

/** Processes (not zombies) whose command line contains `marker`. */
function living(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.trim().startsWith('Z'));
}

const skipReason = support.ok ? '' : ` (skipped: ${support.reason} — ${support.hint})`;

describe.each(runners)(`the OS sandbox, run by $who${skipReason}`, (runner) => {
  const skip = !support.ok || runner.skip !== null;
  const why = runner.skip === null ? '' : ` (skipped: ${runner.skip})`;
  let root = '';
  let ws = '';
  let fixture = '';
  let home = '';
  let project = '';
  let nsFile: string | null = null;
  const servers: Server[] = [];
  let socketPath: string | null = null;
  const abstractName = `massgen-test-${tag}`;

  const input = (
    commands: string[],
    limits: { processes: number; bytes: number; memory?: number } = { processes: 512, bytes: 1024 * MIB },
  ): DriverInput => {
    const env = {
      PATH: `${home}/.cargo/bin:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      LANG: 'C.UTF-8',
    };
    const homeView = homeLayout(env);
    const layout: SandboxLayout = {
      workspace: ws,
      readOnly: [...homeView.readOnly, fixture, project],
      writable: [],
      hidden: [...homeView.hidden, path.join(project, '.massgen')],
      network: false,
    };
    return {
      layout,
      env,
      timeoutMs: 60_000,
      maxProcesses: limits.processes,
      maxFileSizeBytes: limits.bytes,
      ...(limits.memory === undefined ? {} : { maxMemoryBytes: limits.memory }),
      commands,
    };
  };
  const run = async (commands: string[], limits?: { processes: number; bytes: number; memory?: number }) =>
    (await runner.run(input(commands, limits))).map((r) => r.content);

  beforeAll(async () => {
    if (skip) return;
    root = realpathSync(mkdtempSync(path.join(tmpdir(), 'massgen-hardening-')));
    project = path.join(root, 'project');
    ws = path.join(project, '.massgen', 'workspaces', 'ws');
    fixture = path.join(root, 'fixture');
    home = path.join(root, 'home');
    for (const dir of [
      ws,
      path.join(project, '.massgen', 'logs'),
      fixture,
      path.join(home, '.ssh'),
      path.join(home, '.cargo', 'bin'),
    ])
      mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(project, '.massgen', 'logs', 'run.log'), "another agent's log\n");
    writeFileSync(path.join(fixture, 'ro.txt'), 'original\n');
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), '-----BEGIN FAKE KEY-----\n');
    writeFileSync(path.join(home, '.cargo', 'credentials.toml'), 'token = "secret-token"\n');
    writeFileSync(path.join(home, '.cargo', 'bin', 'tool'), '#!/bin/sh\necho tool ran\n', { mode: 0o755 });
    if (runner.owner) {
      for (const p of execFileSync('find', [root], { encoding: 'utf8' }).trim().split('\n'))
        chownSync(p, runner.owner.uid, runner.owner.gid);
    }
    if (isRoot) {
      // A handle on the host's network namespace, visible inside: entering it needs CAP_SYS_ADMIN.
      nsFile = path.join(fixture, 'host-netns');
      writeFileSync(nsFile, '');
      execFileSync('mount', ['--bind', '/proc/self/ns/net', nsFile]);
    }
    // A unix socket of the machine's own (/run when root), and an abstract one.
    const socketDir = isRoot ? `/run/massgen-test-${tag}` : (process.env.XDG_RUNTIME_DIR ?? null);
    if (socketDir !== null) {
      mkdirSync(socketDir, { recursive: true, mode: 0o777 });
      chmodSync(socketDir, 0o777);
      socketPath = path.join(socketDir, `massgen-${tag}.sock`);
    }
    for (const address of [socketPath, `\0${abstractName}`]) {
      if (address === null) continue;
      const server = createServer((socket) => socket.end('reached\n'));
      await new Promise<void>((resolve) => server.listen(address, resolve));
      if (!address.startsWith('\0')) chmodSync(address, 0o777);
      servers.push(server);
    }
  });

  afterAll(() => {
    for (const server of servers) server.close();
    if (isRoot && socketPath !== null) rmSync(path.dirname(socketPath), { recursive: true, force: true });
    if (nsFile !== null) spawnSync('umount', [nsFile]);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.skipIf(skip)(
    `has no capabilities: cannot mount, unmount, enter host namespaces or write the machine${why}`,
    async () => {
      const [caps, attempts, procs] = await run([
        'grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status',
        [
          'umount -l /tmp 2>/dev/null || echo no-umount-tmp',
          `umount -l ${home} 2>/dev/null || echo no-umount-home`,
          'mount -o remount,bind,rw / 2>/dev/null || echo no-remount',
          'mount -t tmpfs none . 2>/dev/null || echo no-mount',
          'unshare -U true 2>/dev/null || echo no-userns',
          `(echo pwned > ${fixture}/ro.txt) 2>/dev/null || echo no-write`,
          `cat ${home}/.ssh/id_rsa ~/.ssh/id_rsa 2>/dev/null || echo no-key`,
          // Root's sandbox still owns root's files: /etc/shadow is masked for it.
          'head -c 5 /etc/shadow 2>/dev/null || echo no-shadow',
          `nsenter --net=/proc/${process.pid}/ns/net true 2>/dev/null || echo no-nsenter-pid`,
          ...(nsFile ? [`nsenter --net=${nsFile} true 2>/dev/null || echo no-nsenter-file`] : []),
          'touch /dev/x 2>/dev/null || echo no-dev',
        ].join('; '),
        `test -e /proc/${process.pid} && echo host-proc; ls /proc | grep -c "^[0-9]"`,
      ]);
      expect(caps).toMatch(/^exit code 0 \(sandbox\)\n/);
      for (const set of ['Eff', 'Prm', 'Bnd', 'Amb']) expect(caps).toContain(`Cap${set}:\t0000000000000000`);
      for (const marker of [
        'shadow',
        'umount-tmp',
        'umount-home',
        'remount',
        'mount',
        'userns',
        'write',
        'key',
        'nsenter-pid',
        'dev',
      ])
        expect(attempts).toContain(`no-${marker}\n`);
      if (nsFile) expect(attempts).toContain('no-nsenter-file\n');
      expect(attempts).not.toContain('BEGIN FAKE KEY');
      expect(readFileSync(path.join(fixture, 'ro.txt'), 'utf8')).toBe('original\n');
      // Its own /proc: a handful of its own processes, none of the host's.
      expect(procs).not.toContain('host-proc');
      expect(Number(procs!.split('\n')[1])).toBeLessThan(10);
    },
    TEST_TIMEOUT_MS,
  );

  // Root without a pids cgroup has no kernel bound: the bomb would run until the next check.
  const unbounded = runner.owner === null && processBound() === 'watch';
  it.skipIf(skip || unbounded)(
    `stops a fork bomb and 300 setsid jobs at the process limit, not the timeout${unbounded ? ' (skipped: root cannot create a pids cgroup here)' : why}`,
    async () => {
      const [bomb, jobs] = await run(
        [
          `f(){ f|f& }; f; sleep 1000.${tag}1`,
          `for i in $(seq 300); do setsid sleep 1000.${tag}2 & done; wait`,
        ],
        { processes: 64, bytes: 1024 * MIB },
      );
      for (const result of [bomb, jobs]) {
        expect(result).toMatch(/the command reached the limit of 64 processes \(command_max_processes\)/);
        expect(result).not.toMatch(/timeout/);
      }
      expect(living(`1000.${tag}`)).toEqual([]);
      // The machine is fine: a command runs normally right after.
      expect(await run(['echo fine'])).toEqual(['exit code 0 (sandbox)\nfine\n']);
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(skip)(
    `stops a command writing more than the limit in total, and /tmp holds no more${why}`,
    async () => {
      const [files, tmp] = await run(
        [
          'for i in 1 2 3 4 5; do head -c 19M /dev/zero > big$i || exit; sleep 0.3; done; echo finished',
          'for i in 1 2 3 4; do head -c 6M /dev/zero > /tmp/t$i || echo full; done',
        ],
        { processes: 512, bytes: 20 * MIB },
      );
      expect(files).toMatch(
        /^stopped: the command wrote more than the 20 MiB limit \(command_max_file_size_mb\)/,
      );
      expect(files).not.toContain('finished');
      expect(existsSync(path.join(ws, 'big5'))).toBe(false);
      expect(tmp).toMatch(/No space left on device/);
      for (let i = 1; i <= 5; i++) rmSync(path.join(ws, `big${i}`), { force: true });
    },
    TEST_TIMEOUT_MS,
  );

  // Root with a memory cgroup: the kernel ends the process; anyone else: the allocation fails (RLIMIT_AS).
  const memoryBy = runner.owner === null && memoryBound() === 'cgroup' ? 'a memory cgroup' : 'RLIMIT_AS';
  it.skipIf(skip)(
    `holds a command to sandbox.memory (${memoryBy}), naming the key, and the next command runs${why}`,
    async () => {
      // Pages written, so they are really used: 200 MiB in Python under 64 MiB; 1.5 GiB in Node (which
      // needs more than 64 MiB of address space just to start) under 1 GiB.
      const allocate = (mib: number) =>
        `python3 -c 'b = bytearray(${mib} * 1024 * 1024); print("allocated", len(b))'`;
      const [python, next] = await run([allocate(200), allocate(8)], {
        processes: 512,
        bytes: 1024 * MIB,
        memory: 64 * MIB,
      });
      const [node] = await run(
        [`node -e 'const b = Buffer.alloc(1536 * 1024 * 1024, 1); console.log("allocated", b.length)'`],
        { processes: 512, bytes: 1024 * MIB, memory: 1024 * MIB },
      );
      expect(python).not.toMatch(/allocated 2/);
      expect(python).toMatch(/out of memory: .*at most 64 MiB \(sandbox\.memory\)/);
      expect(node).not.toMatch(/allocated/);
      expect(node).toMatch(/out of memory: .*at most 1 GiB \(sandbox\.memory\)/);
      // The bound is the command's, not the provider's: the next command runs as usual.
      expect(next).toBe('exit code 0 (sandbox)\nallocated 8388608\n');
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(skip)(
    `shows a PATH entry in the home alone, and none of the machine's unix sockets${why}`,
    async () => {
      const connect = (address: string) =>
        `node -e "require('net').connect('${address}').on('data', d => process.stdout.write(d)).on('error', e => console.log(e.code))"`;
      const [tools, sockets, massgen] = await run([
        `tool; ls -A ${home}/.cargo; cat ${home}/.cargo/credentials.toml`,
        [
          ...(socketPath ? [connect(socketPath)] : []),
          connect(`\\0${abstractName}`),
          'ls -A /run /var/run',
        ].join('; '),
        `ls -A ${project}/.massgen; cat ${project}/.massgen/logs/run.log`,
      ]);
      expect(tools).toMatch(/tool ran\nbin\n/);
      expect(tools).not.toContain('secret-token');
      expect(sockets).not.toContain('reached');
      expect(sockets).toMatch(/ECONNREFUSED/);
      if (socketPath) expect(sockets).toMatch(/ENOENT/);
      expect(sockets).toMatch(/\/run:\n\n\/var\/run:\n/);
      // …though the host reaches them: the test would see a leak.
      for (const address of [socketPath, `\0${abstractName}`].filter((a) => a !== null)) {
        const reply = await new Promise<string>((resolve) => {
          execFile(
            'node',
            [
              '-e',
              `require('net').connect(${JSON.stringify(address)}).on('data', d => process.stdout.write(d))`,
            ],
            (_e, out) => resolve(out),
          );
        });
        expect(reply).toBe('reached\n');
      }
      // .massgen stays hidden inside a read-only project; the workspace within it is granted again.
      expect(massgen).toMatch(/^exit code 1 \(sandbox\)\nworkspaces\n/);
      expect(massgen).not.toContain("another agent's log");
    },
    TEST_TIMEOUT_MS,
  );
});
