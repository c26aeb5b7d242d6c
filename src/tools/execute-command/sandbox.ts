import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isWithin } from '../permissions/check-path.js';

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
  /** How much the private `/tmp` holds (it lives in memory), in bytes. Default 1 GiB. */
  tmpBytes?: number;
  /**
   * Folders shown read-only at another path (`source` → `target`), e.g. skills at `/run/skills/<name>`.
   * `target` must lie inside one of the sandbox's own empty folders (`/run`, a private `/tmp`): the
   * machine's root is read-only, so no mount point can be made elsewhere.
   */
  mounts?: readonly { source: string; target: string }[];
  /**
   * Real paths shown empty whatever grants them (files no tool may read: what a permission rule denies,
   * the `.env` files massgen loaded): a folder becomes an empty read-only one, a file an empty one.
   * Asked when the sandbox starts, so files matching a rule by then are covered.
   */
  masked?: () => readonly string[];
}

const MIB = 1024 * 1024;
/** The empty folders put over hidden ones and `/run`: room for what a program scribbles there, no more. */
const SCRATCH_BYTES = 16 * MIB;
/** An emptied folder: read-only once mounted, so a few bytes of room are all it needs. */
const MASK_BYTES = 4096;
/** `/dev/shm`, as big as Docker's default. */
const SHM_BYTES = 64 * MIB;
const DEFAULT_TMP_BYTES = 1024 * MIB;
/** The user and group ids root becomes inside the sandbox: `nobody`. */
const NOBODY = 65534;

/**
 * Who a sandboxed process is inside its user namespace: the caller's ids, except that root becomes
 * `nobody` (so programs do not take themselves for root). The namespace maps it back to the caller
 * outside, so whatever it creates in the workspace belongs to the caller.
 */
export function sandboxIds(): { uid: number; gid: number } {
  const uid = process.getuid?.() ?? NOBODY;
  const gid = process.getgid?.() ?? NOBODY;
  return uid === 0 ? { uid: NOBODY, gid: NOBODY } : { uid, gid };
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
 * if it differs) is hidden, but PATH entries inside it (`~/.cargo/bin`, `~/.nvm/…/bin`) stay
 * readable, or `python3` would vanish on machines that install it per user. Only the entry itself is
 * granted, never the folder above it: `~/.cargo/bin` on PATH must not bring `~/.cargo/credentials.toml`
 * along. A program there that is a link (nvm's `npm`, a pipx app) also gets the package it points
 * into: the nearest folder above the target holding a `package.json` or `pyvenv.cfg`.
 */
export function homeLayout(env: Readonly<Record<string, string | undefined>>): {
  hidden: string[];
  readOnly: string[];
} {
  const homes = [...new Set([os.homedir(), env.HOME].filter((h): h is string => Boolean(h) && h !== '/'))];
  const inHome = (p: string) =>
    homes.find((home) => {
      const relative = path.relative(home, p);
      return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    });
  const readOnly = new Set<string>();
  for (const entry of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(entry) || inHome(entry) === undefined) continue;
    readOnly.add(entry);
    for (const name of listLinks(entry)) {
      const target = realPath(path.join(entry, name));
      const home = inHome(target);
      if (home === undefined) continue;
      const root = packageRoot(target, home);
      if (root !== null && !PRIVATE_HOME_FOLDERS.has(path.relative(home, root).split(path.sep)[0]!))
        readOnly.add(root);
    }
  }
  return { hidden: homes, readOnly: [...readOnly] };
}

/** The names of the symbolic links in `dir` (none if it cannot be read). */
function listLinks(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isSymbolicLink())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** The package folder holding `target` (below `home`, never `home` itself), else the target's folder. */
function packageRoot(target: string, home: string): string | null {
  for (let dir = path.dirname(target); dir.length > home.length; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) || existsSync(path.join(dir, 'pyvenv.cfg'))) return dir;
  }
  const folder = path.dirname(target);
  return folder === home ? null : folder;
}

function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function isDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** One mount of the sandbox: deeper paths are mounted later, so they win over the folders around them. */
interface Mount {
  dir: string;
  /** At one path: hidden, then read-only, then writable, then the workspace. */
  rank: number;
  args: string[];
}

const depth = (dir: string) => dir.split(path.sep).filter(Boolean).length;

/**
 * bubblewrap's arguments for `layout`, ending in `--` so the command follows.
 *
 * The command gets a user namespace of its own with every capability dropped — whoever runs massgen,
 * root included — so it cannot unmount what hides the home, remount the machine writable, enter
 * another namespace or override file permissions; it cannot create user namespaces either. It has its
 * own process tree and `/proc` (the host's processes are not even visible), its own IPC, hostname and,
 * without network, its own network namespace (no host ports, no abstract unix sockets). `/run` and
 * `/var/run` (the Docker socket, D-Bus, `$XDG_RUNTIME_DIR`) are replaced by empty folders; with
 * network on, only the folder `/etc/resolv.conf` points into is granted back. Every place it can write
 * besides the granted folders is a size-limited tmpfs, and `/dev` is read-only.
 *
 * Mounts go parent first: a folder hidden inside a read-only one stays hidden (`.massgen` inside a
 * `read` context path), a workspace inside a hidden folder is granted again, a protected path inside a
 * writable one stays read-only.
 */
export function bwrapArgs(layout: SandboxLayout): string[] {
  const ids = sandboxIds();
  const args = [
    '--unshare-user',
    '--uid',
    String(ids.uid),
    '--gid',
    String(ids.gid),
    '--disable-userns',
    '--cap-drop',
    'ALL',
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
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--size',
    String(SHM_BYTES),
    '--tmpfs',
    '/dev/shm',
    '--proc',
    '/proc',
  ];
  const mounts: Mount[] = [];
  const scratch = (dir: string, bytes = SCRATCH_BYTES) =>
    mounts.push({ dir, rank: 0, args: ['--size', String(bytes), '--tmpfs', dir] });
  const bind = (flag: string, rank: number, dir: string) => {
    if (existsSync(dir)) mounts.push({ dir, rank, args: [flag, dir, dir] });
  };
  if (layout.privateTmp !== false) scratch('/tmp', layout.tmpBytes ?? DEFAULT_TMP_BYTES);
  else if (isDirectory('/tmp/.X11-unix')) scratch('/tmp/.X11-unix');
  // Sockets of the machine's services live here; /var/run is usually a link to /run.
  for (const dir of ['/run', '/var/run']) if (isDirectory(dir)) scratch(dir);
  if (layout.network) {
    const resolv = realPath('/etc/resolv.conf');
    if (resolv.startsWith('/run/') || resolv.startsWith('/var/run/'))
      bind('--ro-bind', 1, path.dirname(resolv));
  }
  for (const dir of layout.hidden) if (existsSync(dir)) scratch(dir);
  for (const dir of layout.readOnly) bind('--ro-bind', 1, dir);
  for (const dir of layout.writable) bind('--bind', 2, dir);
  for (const { source, target } of layout.mounts ?? [])
    if (existsSync(source)) mounts.push({ dir: target, rank: 1, args: ['--ro-bind', source, target] });
  bind('--bind', 3, layout.workspace);
  mounts.sort((a, b) => depth(a.dir) - depth(b.dir) || a.rank - b.rank);
  for (const mount of mounts) args.push(...mount.args);
  // Masks come last, so no grant inside or around them shows what they cover. Root's own secrets stay
  // root's: the sandbox of root still owns root's files, capabilities or not.
  const rootOnly = ids.uid === NOBODY && process.getuid?.() === 0 ? rootOnlyEtc() : [];
  const masks = [...rootOnly, ...maskedEntries(layout, mounts)];
  for (const { file, dir } of masks) {
    args.push(...(dir ? ['--size', String(MASK_BYTES), '--tmpfs', file] : ['--ro-bind', '/dev/null', file]));
  }
  args.push('--remount-ro', '/dev');
  for (const { file, dir } of masks) if (dir) args.push('--remount-ro', file);
  args.push('--chdir', layout.chdir ?? layout.workspace, '--');
  return args;
}

/**
 * `layout.masked` as the sandbox sees it: each path that exists and is visible there (not inside a
 * hidden folder or the private `/tmp` without a grant closer to it), folders first, nothing twice.
 */
function maskedEntries(layout: SandboxLayout, mounts: readonly Mount[]): { file: string; dir: boolean }[] {
  const wanted = [...new Set(layout.masked?.() ?? [])].sort((a, b) => depth(a) - depth(b));
  const found: { file: string; dir: boolean }[] = [];
  for (const file of wanted) {
    if (!path.isAbsolute(file) || found.some((m) => m.dir && isWithin(file, m.file))) continue;
    // The innermost mount around it decides whether it is there to see: scratch (rank 0) is empty.
    const around = mounts
      .filter((m) => isWithin(file, m.dir))
      .sort((a, b) => depth(b.dir) - depth(a.dir) || b.rank - a.rank)[0];
    if (around !== undefined && around.rank === 0) continue;
    try {
      const info = lstatSync(file);
      if (info.isSymbolicLink()) continue;
      found.push({ file, dir: info.isDirectory() });
    } catch {
      // Gone: nothing to mask.
    }
  }
  return found;
}

let etcSecrets: { file: string; dir: boolean }[] | undefined;

/**
 * What in /etc (two levels down) only its owner may read — `/etc/shadow`, `/etc/ssl/private`, a
 * service's password file. Root's sandbox maps to root outside, so it is these files' owner: they are
 * masked (empty) rather than left readable. Root's files elsewhere stay readable to it: the user
 * namespace drops root's capabilities, not its ownership.
 */
function rootOnlyEtc(): { file: string; dir: boolean }[] {
  if (etcSecrets) return etcSecrets;
  const found: { file: string; dir: boolean }[] = [];
  const visit = (dir: string, level: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        const info = lstatSync(file);
        if (info.isSymbolicLink()) continue;
        if ((info.mode & 0o004) === 0) found.push({ file, dir: info.isDirectory() });
        else if (info.isDirectory() && level < 2) visit(file, level + 1);
      } catch {
        // Gone meanwhile.
      }
    }
  };
  visit('/etc', 1);
  return (etcSecrets = found);
}
