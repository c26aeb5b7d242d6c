import { constants as fsConstants } from 'node:fs';
import { lstat, open, readlink, realpath, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Phase } from '../../types/events.js';
import type { Access, CheckPath, ContextPathRule, PathDecision, PathPolicy } from './path-policy.js';
import { errorCode } from '../../util/guards.js';

/** Symbolic links followed while resolving one path before giving up (Linux's own limit). */
const MAX_SYMLINK_HOPS = 40;

/** `O_NOFOLLOW` where the platform has it (not on Windows, where symlinks need privileges anyway). */
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;
/** So a FIFO planted where a file was expected cannot block the open forever. */
const O_NONBLOCK = fsConstants.O_NONBLOCK ?? 0;

/** Whether `child` is `root` or inside it, by whole path segments (`/ws10` is not inside `/ws1`). */
export function isWithin(child: string, root: string): boolean {
  if (child === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return child.startsWith(prefix);
}

type Resolution = { ok: true; realPath: string } | { ok: false; why: string };

/**
 * The real location `absolute` names, the way the OS would find it: symlinks resolved (including a
 * dangling one, which a create would follow), `..` applied after the symlink before it. For a path
 * that does not exist yet, the nearest existing ancestor is resolved and the rest appended; a `..`
 * in that rest is refused because its meaning depends on folders that are not there.
 */
async function resolveReal(absolute: string, hops = 0): Promise<Resolution> {
  if (hops > MAX_SYMLINK_HOPS) return { ok: false, why: 'it goes through too many symbolic links' };
  try {
    return { ok: true, realPath: await realpath(absolute) };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP') return { ok: false, why: 'it goes through a loop of symbolic links' };
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      return { ok: false, why: `it could not be resolved (${code ?? String(error)})` };
    }
  }

  const { root } = path.parse(absolute);
  const segments = absolute
    .slice(root.length)
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.');
  for (let existing = segments.length - 1; existing >= 0; existing--) {
    // Joined by hand: path.join would apply `..` lexically, before the symlinks it may follow.
    const ancestor = root + segments.slice(0, existing).join(path.sep);
    let realAncestor: string;
    try {
      realAncestor = await realpath(ancestor);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      if (code === 'ELOOP') return { ok: false, why: 'it goes through a loop of symbolic links' };
      return { ok: false, why: `it could not be resolved (${code ?? String(error)})` };
    }
    const rest = segments.slice(existing);
    const [first, ...after] = rest;
    if (first === undefined) return { ok: true, realPath: realAncestor };
    if (rest.includes('..')) {
      return { ok: false, why: `it uses ".." after "${first}", which does not exist` };
    }
    const next = path.join(realAncestor, first);
    let link: string | undefined;
    try {
      const info = await lstat(next);
      if (info.isSymbolicLink()) link = await readlink(next);
    } catch {
      // Not there at all: the usual case of a file or folder about to be created.
    }
    if (link !== undefined) {
      // A dangling symlink: creating through it would create its target, so judge the target.
      return resolveReal(path.join(path.resolve(realAncestor, link), ...after), hops + 1);
    }
    return { ok: true, realPath: path.join(realAncestor, ...rest) };
  }
  return { ok: false, why: 'it could not be resolved' };
}

/**
 * Where `absolute` really leads (see {@link resolveReal}), or null when it cannot be resolved (a loop,
 * `..` after a missing folder, no permission).
 */
export async function realPathOf(absolute: string): Promise<string | null> {
  // Not `path.resolve`: it would apply `..` before the links it may follow.
  const resolution = await resolveReal(path.isAbsolute(absolute) ? absolute : path.resolve(absolute));
  return resolution.ok ? resolution.realPath : null;
}

/** A policy with every folder in real form, so comparisons with resolved paths are exact. */
interface RealPolicy {
  workspace: string;
  peerSnapshots: string | null;
  contextPaths: { rule: ContextPathRule; path: string; protectedPaths: string[] }[];
  readOnly: string[];
}

async function realOrResolved(folder: string): Promise<string> {
  const absolute = path.resolve(folder);
  const resolved = await resolveReal(absolute);
  return resolved.ok ? resolved.realPath : absolute;
}

async function realPolicy(policy: PathPolicy): Promise<RealPolicy> {
  return {
    workspace: await realOrResolved(policy.workspace),
    peerSnapshots: policy.peerSnapshots === null ? null : await realOrResolved(policy.peerSnapshots),
    contextPaths: await Promise.all(
      policy.contextPaths.map(async (rule) => ({
        rule,
        path: await realOrResolved(rule.path),
        protectedPaths: await Promise.all(rule.protectedPaths.map(realOrResolved)),
      })),
    ),
    readOnly: await Promise.all(policy.readOnly.map(realOrResolved)),
  };
}

/** One folder the policy names, and what it allows. */
type Area =
  | { kind: 'workspace'; root: string }
  | { kind: 'peer'; root: string }
  | { kind: 'readOnly'; root: string }
  | { kind: 'context'; root: string; rule: ContextPathRule };

/** Among folders nested in one another, the innermost decides; on a tie the more restrictive one. */
function innermostArea(real: RealPolicy, target: string): Area | undefined {
  const areas: Area[] = [
    { kind: 'workspace', root: real.workspace },
    ...(real.peerSnapshots === null ? [] : [{ kind: 'peer' as const, root: real.peerSnapshots }]),
    ...real.readOnly.map((root) => ({ kind: 'readOnly' as const, root })),
    ...real.contextPaths.map(({ rule, path: root }) => ({ kind: 'context' as const, root, rule })),
  ];
  const restrictiveness = (area: Area): number =>
    area.kind === 'peer' || area.kind === 'readOnly'
      ? 3
      : area.kind === 'context'
        ? area.rule.permission === 'read'
          ? 2
          : 1
        : 0;
  let best: Area | undefined;
  for (const area of areas) {
    if (!isWithin(target, area.root)) continue;
    if (
      best === undefined ||
      area.root.length > best.root.length ||
      (area.root.length === best.root.length && restrictiveness(area) > restrictiveness(best))
    ) {
      best = area;
    }
  }
  return best;
}

/**
 * Builds the one function every path-taking tool asks before touching the disk (see {@link CheckPath}).
 * Decisions are made on the real path (symlinks resolved), and the caller must then use the returned
 * `realPath`. The policy's folders are resolved once, on the first call.
 */
export function createPathChecker(policy: PathPolicy): CheckPath {
  let resolvedPolicy: Promise<RealPolicy> | undefined;

  return async (requested: string, access: Access, phase: Phase): Promise<PathDecision> => {
    if (typeof requested !== 'string' || requested.trim() === '') {
      return {
        allowed: false,
        reason: 'The path is empty; give a file or folder path relative to your workspace.',
      };
    }
    const shown = JSON.stringify(requested);
    if (requested.includes('\0')) {
      return { allowed: false, reason: `${shown} contains a NUL character, which no path may contain.` };
    }
    if (requested.startsWith('~')) {
      return {
        allowed: false,
        reason: `${shown} starts with "~", which is not expanded to a home folder; use a path relative to your workspace (${policy.workspace}) or an absolute path.`,
      };
    }

    resolvedPolicy ??= realPolicy(policy);
    const real = await resolvedPolicy;
    const absolute = path.isAbsolute(requested) ? requested : `${real.workspace}${path.sep}${requested}`;
    const resolution = await resolveReal(absolute);
    if (!resolution.ok) {
      return { allowed: false, reason: `${shown} cannot be used: ${resolution.why}.` };
    }
    const { realPath } = resolution;
    const lexical = path.resolve(real.workspace, requested);
    const subject = realPath === lexical ? shown : `${shown} (which resolves to ${realPath})`;
    const outside = `${subject} is outside your workspace and the folders you may use (workspace: ${real.workspace}).`;

    const area = innermostArea(real, realPath);
    if (area === undefined) return { allowed: false, reason: outside };
    // A link cannot lead past a denial: it is asked with the real path (and the workspace is no exception).
    const denial = policy.denied?.(realPath) ?? null;
    if (denial !== null) {
      return {
        allowed: false,
        reason: `${subject} ${denial.why}.`,
        ...(denial.byRule ? { byRule: true } : {}),
      };
    }
    if (access === 'read') return { allowed: true, realPath };

    if (real.contextPaths.some(({ protectedPaths }) => protectedPaths.some((p) => isWithin(realPath, p)))) {
      return { allowed: false, reason: `${subject} is protected (protected_paths) and may not be written.` };
    }
    switch (area.kind) {
      case 'workspace':
        return { allowed: true, realPath };
      case 'peer':
        return {
          allowed: false,
          reason: `${subject} is another agent's snapshot (read-only); copy it into your workspace with copy_file first.`,
        };
      case 'readOnly':
        return {
          allowed: false,
          reason: `${subject} is in a read-only folder (${area.root}); copy it into your workspace with copy_file first.`,
        };
      case 'context':
        if (area.rule.permission === 'read') {
          return {
            allowed: false,
            reason: `${subject} is in a read-only context path (permission: read) and may not be written; write in your workspace instead.`,
          };
        }
        if (phase !== 'presentation' && area.rule.ownCopy !== true) {
          return {
            allowed: false,
            reason: `${subject} is in a context path that is read-only while the agents coordinate; only the final presenter may write it. Write in your workspace for now.`,
          };
        }
        return { allowed: true, realPath };
    }
  };
}

/** Options of {@link safeOpenForWrite}. */
export interface SafeOpenOptions {
  /** Test hook: runs after the path was checked and before it is opened (e.g. to swap a symlink in). */
  beforeOpen?: () => Promise<void>;
  /** Permission bits of a created file (before the umask). Default 0o666. */
  mode?: number;
}

/** An open file and whether opening it created it. */
export interface SafeWriteHandle {
  handle: FileHandle;
  created: boolean;
}

/**
 * Opens an already checked real path for writing without following a symlink at its last component:
 * a link swapped in after the check makes the open fail with `ELOOP` instead of writing its target.
 * An existing file is truncated only after the handle is confirmed to be the file at `realPath`
 * (a folder on the way swapped for a link would otherwise truncate a file elsewhere).
 *
 * Node has no `openat`, so a folder on the way that is replaced by a symlink at the very moment of the
 * open cannot be excluded outright; the identity check then refuses to truncate or write, and an empty
 * file the open created at the link's target is removed again (best effort).
 */
export async function safeOpenForWrite(
  realPath: string,
  options: SafeOpenOptions = {},
): Promise<SafeWriteHandle> {
  await options.beforeOpen?.();
  const mode = options.mode ?? 0o666;
  let handle: FileHandle;
  let created: boolean;
  try {
    // O_EXCL never follows a symlink either: it fails with EEXIST on one.
    handle = await open(
      realPath,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | O_NOFOLLOW | O_NONBLOCK,
      mode,
    );
    created = true;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    handle = await open(realPath, fsConstants.O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
    created = false;
  }
  try {
    await assertSameFile(handle, realPath);
    if (!(await handle.stat()).isFile()) {
      throw Object.assign(new Error(`${realPath} is not a regular file`), { code: 'EFTYPE' });
    }
    if (!created) await handle.truncate(0);
  } catch (error) {
    if (created) await removeIfSame(handle, realPath);
    await handle.close();
    throw error;
  }
  return { handle, created };
}

/** Opens an already checked real path for reading without following a symlink at its last component. */
export async function safeOpenForRead(realPath: string): Promise<FileHandle> {
  const handle = await open(realPath, fsConstants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    await assertSameFile(handle, realPath);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Best effort after a create landed somewhere else (a folder on the way swapped for a symlink): removes
 * the empty file just created, if `realPath` still leads to it.
 */
async function removeIfSame(handle: FileHandle, realPath: string): Promise<void> {
  try {
    const [opened, there] = await Promise.all([handle.stat(), stat(realPath)]);
    if (opened.dev === there.dev && opened.ino === there.ino && opened.size === 0) await unlink(realPath);
  } catch {
    // Nothing more can be done without openat/unlinkat.
  }
}

/** Throws `ELOOP` unless `handle` is the file that `realPath` names now, through no symlink. */
async function assertSameFile(handle: FileHandle, realPath: string): Promise<void> {
  const opened = await handle.stat();
  let there: Awaited<ReturnType<typeof lstat>> | undefined;
  let stillReal = false;
  try {
    there = await lstat(realPath);
    stillReal = (await realpath(realPath)) === realPath;
  } catch {
    // Gone or unreadable: treated as a mismatch below.
  }
  if (!stillReal || there === undefined || there.dev !== opened.dev || there.ino !== opened.ino) {
    throw Object.assign(
      new Error(`${realPath} changed to go through a symbolic link while it was being opened`),
      {
        code: 'ELOOP',
      },
    );
  }
}
