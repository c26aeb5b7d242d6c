import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapArgs, homeLayout, type SandboxLayout } from './sandbox.js';
import { sandboxSupport } from './sandbox-support.js';

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'massgen-sandbox-')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const layout = (overrides: Partial<SandboxLayout> = {}): SandboxLayout => ({
  workspace: dir,
  readOnly: [],
  writable: [],
  hidden: [],
  network: false,
  ...overrides,
});

/** The index of `flag` followed by `value` in `args`. */
const at = (args: string[], ...seq: string[]) =>
  args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));

describe('bwrapArgs', () => {
  it.each([
    ['execute_command', {}],
    [
      'an MCP server, a harness or a Python agent (network on, the real /tmp)',
      { network: true, privateTmp: false },
    ],
  ])('confines %s alike: own user namespace, no capabilities, own pids and /proc', (_, overrides) => {
    const args = bwrapArgs(layout(overrides));
    for (const flag of [
      '--unshare-user',
      '--disable-userns',
      '--unshare-pid',
      '--die-with-parent',
      '--new-session',
    ])
      expect(args).toContain(flag);
    expect(at(args, '--cap-drop', 'ALL')).toBeGreaterThan(-1);
    expect(at(args, '--proc', '/proc')).toBeGreaterThan(-1);
    expect(at(args, '--remount-ro', '/dev')).toBeGreaterThan(-1);
    expect(args.at(-1)).toBe('--');
    // Uid and gid inside: the caller's, or nobody for root.
    const uid = args[at(args, '--uid') + 1];
    expect(uid).toBe(String(process.getuid?.() === 0 ? 65534 : process.getuid?.()));
  });

  it('mounts parents first: hidden inside read-only stays hidden, the workspace inside it is granted again', () => {
    const project = path.join(dir, 'project');
    const massgen = path.join(project, '.massgen');
    const ws = path.join(massgen, 'workspaces', 'a');
    const keep = path.join(ws, 'keep');
    mkdirSync(keep, { recursive: true });
    const args = bwrapArgs(layout({ workspace: ws, readOnly: [keep, project], hidden: [massgen] }));
    const order = [
      at(args, '--ro-bind', project, project),
      at(args, '--tmpfs', massgen),
      at(args, '--bind', ws, ws),
      at(args, '--ro-bind', keep, keep),
    ];
    expect(order.every((i) => i > -1)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('masks last, over every grant: a folder as an empty read-only tmpfs, a file as /dev/null', () => {
    const project = path.join(dir, 'masks');
    const ws = path.join(project, 'ws');
    const secrets = path.join(project, 'secrets');
    const hidden = path.join(project, 'hidden');
    for (const d of [ws, path.join(secrets, 'deep'), hidden]) mkdirSync(d, { recursive: true });
    for (const f of [
      path.join(project, '.env'),
      path.join(ws, '.env'),
      path.join(hidden, '.env'),
      path.join(secrets, 'deep', 'inside-a-masked-folder'),
    ])
      writeFileSync(f, 'X=1\n');
    const args = bwrapArgs(
      layout({
        workspace: ws,
        readOnly: [project, path.join(secrets, 'deep')],
        hidden: [hidden],
        masked: () => [
          secrets,
          path.join(secrets, 'deep', 'inside-a-masked-folder'),
          path.join(project, '.env'),
          path.join(ws, '.env'),
          path.join(hidden, '.env'),
          path.join(project, 'gone'),
        ],
      }),
    );
    const grants = [at(args, '--ro-bind', path.join(secrets, 'deep')), at(args, '--bind', ws, ws)];
    const masks = [
      at(args, '--tmpfs', secrets),
      at(args, '--ro-bind', '/dev/null', path.join(project, '.env')),
      at(args, '--ro-bind', '/dev/null', path.join(ws, '.env')),
    ];
    for (const i of [...grants, ...masks]) expect(i).toBeGreaterThan(-1);
    expect(Math.min(...masks)).toBeGreaterThan(Math.max(...grants));
    expect(at(args, '--remount-ro', secrets)).toBeGreaterThan(at(args, '--tmpfs', secrets));
    // Nothing to mask where the sandbox shows nothing, or nothing is.
    expect(args.join(' ')).not.toContain(path.join(hidden, '.env'));
    expect(args.join(' ')).not.toContain(path.join(project, 'gone'));
    expect(args.join(' ')).not.toContain('inside-a-masked-folder');
  });

  it('hides /run and /var/run; with network on grants back only the folder /etc/resolv.conf points into', () => {
    const offline = bwrapArgs(layout());
    expect(at(offline, '--tmpfs', '/run')).toBeGreaterThan(-1);
    const online = bwrapArgs(layout({ network: true }));
    expect(at(online, '--tmpfs', '/run')).toBeGreaterThan(-1);
    expect(online).not.toContain('--unshare-net');
  });
});

describe('homeLayout', () => {
  it('grants a PATH entry in the home alone, with the packages its links point into', () => {
    const home = path.join(dir, 'home');
    const cargoBin = path.join(home, '.cargo', 'bin');
    const nodeBin = path.join(home, '.nvm', 'versions', 'node', 'v20', 'bin');
    const npm = path.join(home, '.nvm', 'versions', 'node', 'v20', 'lib', 'node_modules', 'npm');
    for (const d of [cargoBin, nodeBin, path.join(npm, 'bin')]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(home, '.cargo', 'credentials.toml'), 'token');
    writeFileSync(path.join(npm, 'package.json'), '{}');
    writeFileSync(path.join(npm, 'bin', 'npm-cli.js'), '');
    chmodSync(path.join(npm, 'bin', 'npm-cli.js'), 0o755);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(nodeBin, 'npm'));
    const view = homeLayout({ HOME: home, PATH: `${cargoBin}:${nodeBin}:/usr/bin` });
    expect(view.hidden).toContain(home);
    expect(view.readOnly.sort()).toEqual([cargoBin, nodeBin, npm].sort());
  });
});

describe('sandboxSupport', () => {
  /** A PATH whose bwrap prints `message` and fails, as bubblewrap does on such a machine. */
  const failingBwrap = (name: string, message: string) => {
    const bin = path.join(dir, name);
    mkdirSync(bin);
    writeFileSync(
      path.join(bin, 'bwrap'),
      `#!/bin/sh\n[ "$1" = --version ] && echo "bubblewrap 0.6.1" && exit 0\necho "${message}" >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    writeFileSync(path.join(bin, 'prlimit'), '#!/bin/sh\n', { mode: 0o755 });
    return bin;
  };

  it('tries the sandbox flags themselves: no user namespaces is reported with how to allow them', () => {
    const result = sandboxSupport(
      failingBwrap(
        'no-userns',
        'bwrap: No permission to create new namespace, likely because the kernel does not allow non-privileged user namespaces.',
      ),
    );
    expect(result).toEqual({
      ok: false,
      reason:
        'bubblewrap cannot create a sandbox here (bwrap: No permission to create new namespace, likely because the kernel does not allow non-privileged user namespaces.)',
      hint: expect.stringMatching(
        /^allow user namespaces \(sysctl user\.max_user_namespaces=10000; .*\), or use execution_mode: docker$/,
      ),
    });
  });

  it('names a bubblewrap too old for the flags', () => {
    expect(sandboxSupport(failingBwrap('old', 'bwrap: Unknown option --disable-userns'))).toEqual({
      ok: false,
      reason:
        "bubblewrap 0.6.1 is too old for massgen's sandbox (bwrap: Unknown option --disable-userns; it needs 0.8 or newer)",
      hint: 'upgrade bubblewrap (Debian 12, Ubuntu 24.04 and Fedora 38 have 0.8 or newer), or use execution_mode: docker',
    });
  });
});

const support = sandboxSupport(process.env.PATH);

describe.skipIf(!support.ok)(
  `real bubblewrap${support.ok ? '' : ` (skipped: ${support.ok || support.reason})`}`,
  () => {
    it('an MCP-style sandbox (network on, the real /tmp) has no capabilities and no /run either', () => {
      const run = spawnSync(
        support.ok ? support.bwrap : 'false',
        [
          ...bwrapArgs(layout({ network: true, privateTmp: false })),
          'sh',
          '-c',
          'grep CapEff /proc/self/status; ls -A /run | grep -v "^systemd$"; echo end',
        ],
        { encoding: 'utf8' },
      );
      expect(run.stdout).toBe('CapEff:\t0000000000000000\nend\n');
    });

    it('shows masked files and folders empty, even where the workspace is writable', () => {
      const ws = path.join(dir, 'masked-ws');
      mkdirSync(path.join(ws, 'secrets'), { recursive: true });
      writeFileSync(path.join(ws, 'secrets', 'key.txt'), 'masked-key\n');
      writeFileSync(path.join(ws, '.env'), 'masked-env\n');
      const masked = [path.join(ws, 'secrets'), path.join(ws, '.env')];
      const run = spawnSync(
        support.ok ? support.bwrap : 'false',
        [
          ...bwrapArgs(layout({ workspace: ws, masked: () => masked })),
          'sh',
          '-c',
          'cat .env secrets/key.txt; ls -A secrets; echo x > secrets/new || echo no-write; echo end',
        ],
        { encoding: 'utf8' },
      );
      expect(run.stdout + run.stderr).not.toMatch(/masked-(key|env)/);
      expect(run.stdout).toBe('no-write\nend\n');
    });
  },
);
