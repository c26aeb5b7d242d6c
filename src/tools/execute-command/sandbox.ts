import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from './docker.js';

/**
 * What a sandboxed process may see and touch. Everything else on the machine is read-only; the
 * folders in `hidden` (the user's home, by default) are replaced by empty ones, so keys, shell history
 * and other projects are out of reach unless a folder below is granted again.
 */
export interface SandboxLayout {
  /** Read-write: the agent's workspace. */
  workspace: string;
  /** Read-only even where a writable folder contains them (peers' snapshots, `read` context paths, protected paths). */
  readOnly: readonly string[];
  /** Read-write besides the workspace (`write` context paths, during the final presentation only). */
  writable: readonly string[];
  /** Replaced by empty folders (the user's home). */
  hidden: readonly string[];
  /** Network access; off by default (a private network namespace with only loopback). */
  network: boolean;
  /** Where the process starts; default the workspace. */
  chdir?: string;
  /**
   * An empty private `/tmp` (default). Off for MCP servers, whose scripts may live under `/tmp`: they
   * see the real one read-only and get `TMPDIR` in the workspace instead.
   */
  privateTmp?: boolean;
}

/** Whether the OS sandbox can run here, and why not. */
export type SandboxSupport = { ok: true; bwrap: string } | { ok: false; reason: string; hint: string };

let cached: { path: string | undefined; support: SandboxSupport } | null = null;

/**
 * Whether bubblewrap works on this machine: the binary is on PATH and can create the namespaces it
 * needs (user namespaces may be disabled, or a container may forbid them). Checked once per PATH.
 */
export function sandboxSupport(pathVariable: string | undefined): SandboxSupport {
  if (cached && cached.path === pathVariable) return cached.support;
  const support = probe(pathVariable);
  cached = { path: pathVariable, support };
  return support;
}

function probe(pathVariable: string | undefined): SandboxSupport {
  if (process.platform !== 'linux') {
    return {
      ok: false,
      reason: `no OS sandbox is supported on ${process.platform} yet`,
      hint: 'use execution_mode: docker, or execution_mode: local to run commands unsandboxed',
    };
  }
  const bwrap = findExecutable('bwrap', pathVariable);
  if (bwrap === null) {
    return {
      ok: false,
      reason: 'bubblewrap (bwrap) is not installed',
      hint: 'install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or use execution_mode: docker',
    };
  }
  const trial = spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-all', '--die-with-parent', '--', 'true'],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit code ${trial.status}`).trim();
    return {
      ok: false,
      reason: `bubblewrap cannot create a sandbox here (${why})`,
      hint: 'enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or use execution_mode: docker',
    };
  }
  return { ok: true, bwrap };
}

/** Folders in a home that hold credentials or settings: never granted whole, even when on PATH. */
const PRIVATE_HOME_FOLDERS = new Set([
  '.ssh',
  '.aws',
  '.gnupg',
  '.config',
  '.docker',
  '.kube',
  '.azure',
  '.local',
]);

/**
 * What a sandbox hides of the user's home by default, and what it grants back: the home (and `$HOME`
 * if it differs) is hidden, but toolchains installed there and found on PATH (`~/.pyenv`, `~/.nvm`,
 * `~/.cargo`) stay readable, or `python3` would vanish on machines that install it per user. A PATH
 * entry inside a private folder (`~/.local/bin`) is granted alone.
 */
export function homeLayout(env: Readonly<Record<string, string | undefined>>): {
  hidden: string[];
  readOnly: string[];
} {
  const homes = [...new Set([os.homedir(), env.HOME].filter((h): h is string => Boolean(h) && h !== '/'))];
  const readOnly = new Set<string>();
  for (const entry of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(entry)) continue;
    for (const home of homes) {
      const relative = path.relative(home, entry);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const top = relative.split(path.sep)[0]!;
      readOnly.add(PRIVATE_HOME_FOLDERS.has(top) ? entry : path.join(home, top));
    }
  }
  return { hidden: homes, readOnly: [...readOnly] };
}

/**
 * bubblewrap's arguments for `layout`, ending in `--` so the command follows. Order matters: later
 * mounts cover earlier ones, so the read-only root comes first, then what is hidden, then what is
 * granted, and protected paths last so nothing above re-opens them.
 */
export function bwrapArgs(layout: SandboxLayout): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  if (layout.privateTmp !== false) args.push('--tmpfs', '/tmp');
  for (const dir of layout.hidden) args.push('--tmpfs', dir);
  const bind = (flag: string, dir: string) => {
    if (existsSync(dir)) args.push(flag, dir, dir);
  };
  // Granted folders may sit inside hidden ones (a project under the home): bind them again.
  for (const dir of layout.readOnly) bind('--ro-bind', dir);
  for (const dir of layout.writable) bind('--bind', dir);
  bind('--bind', layout.workspace);
  // A read-only folder inside a writable one (a protected path inside a write context path) stays
  // read-only: bound again after it.
  const inside = (dir: string, folder: string) => dir.startsWith(`${folder}${path.sep}`);
  for (const dir of layout.readOnly) {
    if (inside(dir, layout.workspace) || layout.writable.some((w) => inside(dir, w))) bind('--ro-bind', dir);
  }
  args.push(
    // A process tree of its own: when the command's shell ends, the kernel ends everything it started,
    // including children that called setsid or double-forked.
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(layout.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    // No TIOCSTI into the caller's terminal.
    '--new-session',
    '--chdir',
    layout.chdir ?? layout.workspace,
    '--',
  );
  return args;
}
