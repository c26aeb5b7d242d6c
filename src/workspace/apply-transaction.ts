import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, rename, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../util/guards.js';
import type { ApplyOp } from './apply-plan.js';

/**
 * The second half of bringing the winner's changes back: the planned operations, all or none. Each
 * operation first checks again that no folder above its path has become a symbolic link, and records
 * how to undo itself — a replaced or removed file is renamed aside in its own folder (same filesystem,
 * nothing copied) until every operation has succeeded. The first failure undoes everything done so far,
 * newest first, and is thrown.
 */

type Undo = () => Promise<void>;

const aside = (target: string) =>
  path.join(path.dirname(target), `.massgen-undo-${randomBytes(6).toString('hex')}`);

/** Runs `ops` in the user's `folder`; on failure leaves the folder as it was and throws. */
export async function runApply(folder: string, ops: readonly ApplyOp[]): Promise<void> {
  const undo: Undo[] = [];
  const discard: string[] = [];
  const abs = (rel: string) => path.join(folder, ...rel.split('/'));
  let current = '';
  try {
    for (const op of ops) {
      const target = abs(op.rel);
      current = op.rel;
      await noLinkAbove(folder, op.rel);
      switch (op.op) {
        case 'remove': {
          const backup = aside(target);
          await rename(target, backup);
          undo.push(() => rename(backup, target));
          discard.push(backup);
          break;
        }
        case 'rmdir': {
          const { mode } = await lstat(target);
          await rmdir(target);
          undo.push(() => mkdir(target, { mode: mode & 0o7777 }));
          break;
        }
        case 'chmod': {
          const { mode } = await lstat(target);
          await chmod(target, op.mode);
          undo.push(() => chmod(target, mode & 0o7777));
          break;
        }
        case 'link':
          await makeParents(folder, op.rel, undo);
          await symlink(op.linkTarget, target);
          undo.push(() => unlink(target));
          break;
        case 'write':
          await makeParents(folder, op.rel, undo);
          await write(target, op, undo, discard);
          break;
      }
    }
  } catch (error) {
    const stuck: string[] = [];
    for (const step of undo.reverse()) {
      await step().catch((undoError: unknown) => stuck.push(describe(undoError)));
    }
    const what = `${current}: ${describe(error)}`;
    throw new Error(
      stuck.length === 0
        ? `${what}; everything written was undone`
        : `${what}; undoing it failed too (${stuck.join('; ')}): check the folder`,
    );
  }
  for (const backup of discard) await unlink(backup).catch(() => undefined);
}

/** Writes a file through a temporary name in its own folder, so it appears whole or not at all. */
async function write(
  target: string,
  op: Extract<ApplyOp, { op: 'write' }>,
  undo: Undo[],
  discard: string[],
): Promise<void> {
  const temporary = aside(target);
  try {
    await writeFile(temporary, op.content, { flag: 'wx', mode: op.executable ? 0o777 : 0o666 });
    if (op.mode !== null) await chmod(temporary, op.mode);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  const existing = await lstat(target).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  });
  if (existing !== null) {
    if (!existing.isFile()) {
      await unlink(temporary).catch(() => undefined);
      throw new Error('it changed while applying (no longer a file)');
    }
    const backup = aside(target);
    await rename(target, backup);
    undo.push(() => rename(backup, target));
    discard.push(backup);
  } else {
    undo.push(() => unlink(target));
  }
  await rename(temporary, target);
}

/** Creates the missing folders above `rel`, each undone (removed) on failure. */
async function makeParents(folder: string, rel: string, undo: Undo[]): Promise<void> {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const dir = path.join(folder, ...parts.slice(0, i));
    try {
      await mkdir(dir);
      undo.push(() => rmdir(dir));
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
  }
}

/** Throws when a folder above `rel` (inside `folder`) is a symbolic link or not a folder at all. */
async function noLinkAbove(folder: string, rel: string): Promise<void> {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.join(folder, ...parts.slice(0, i));
    const stats = await lstat(dir).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    });
    if (stats === null) return;
    if (!stats.isDirectory()) {
      throw new Error(
        `${dir} changed while applying (now ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a folder'})`,
      );
    }
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
