import { lstat, mkdir, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Phase } from '../../types/events.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { errorCode } from '../../util/guards.js';
import { isWithin, safeOpenForRead, safeOpenForWrite } from '../permissions/check-path.js';
import type { Access, CheckPath } from '../permissions/path-policy.js';
import { ioFailure, missing, plural, refuse, stringArg } from './tool-results.js';

/** How much copy_file reads and writes at a time. */
const COPY_CHUNK_BYTES = 1024 * 1024;

/** What copy_file shares with the other filesystem tools of its agent. */
export interface CopyDeps {
  checkPath: CheckPath;
  /** The agent's own workspace, real: the only place copy_file writes. */
  workspace: () => Promise<string>;
  /** Real paths of files this agent created: each file copied joins them. */
  created: Set<string>;
  beforeWriteOpen: ((realPath: string) => Promise<void>) | undefined;
}

/** `checkPath`'s verdict, with a refusal as the tool result. */
export async function checkedPath(
  checkPath: CheckPath,
  given: string,
  access: Access,
  phase: Phase,
): Promise<{ ok: true; realPath: string } | { ok: false; result: ToolResult }> {
  const decision = await checkPath(given, access, phase);
  return decision.allowed
    ? { ok: true, realPath: decision.realPath }
    : { ok: false, result: refuse(decision.reason) };
}

/**
 * `copy_file`: a file, or a folder with everything in it, into the agent's own workspace. Each entry
 * of a folder is checked again on its own (what no tool may read stays behind); symbolic links and
 * special files are skipped.
 */
export async function copyFileTool(
  args: Record<string, unknown>,
  context: ToolContext,
  deps: CopyDeps,
): Promise<ToolResult> {
  const { checkPath, created, beforeWriteOpen } = deps;
  const source = stringArg(args, 'source');
  if (source === undefined) return missing('copy_file', 'source');
  const destination = stringArg(args, 'destination');
  if (destination === undefined) return missing('copy_file', 'destination');
  const shownSource = JSON.stringify(source);
  const shownDestination = JSON.stringify(destination);
  const from = await checkedPath(checkPath, source, 'read', context.phase);
  if (!from.ok) return from.result;
  const to = await checkedPath(checkPath, destination, 'write', context.phase);
  if (!to.ok) return to.result;
  const workspace = await deps.workspace();
  if (!isWithin(to.realPath, workspace) || to.realPath === workspace) {
    return refuse(
      `${shownDestination} is not inside your own workspace; copy_file copies into your workspace only (workspace: ${workspace}). Give a destination path relative to it.`,
    );
  }

  let sourceInfo;
  try {
    sourceInfo = await lstat(from.realPath);
  } catch (error) {
    return ioFailure(error, shownSource);
  }
  let destinationInfo;
  try {
    destinationInfo = await lstat(to.realPath);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') return ioFailure(error, shownDestination);
  }

  const counts = { files: 0, folders: 0, skipped: 0, denied: 0 };
  const copyOneFile = async (fromPath: string, toPath: string): Promise<void> => {
    const input = await safeOpenForRead(fromPath);
    try {
      const info = await input.stat();
      const { handle: output } = await safeOpenForWrite(toPath, {
        mode: info.mode & 0o777,
        beforeOpen: beforeWriteOpen && (() => beforeWriteOpen(toPath)),
      });
      try {
        const buffer = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
        for (;;) {
          context.signal.throwIfAborted();
          const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
          if (bytesRead === 0) break;
          for (let written = 0; written < bytesRead;) {
            written += (await output.write(buffer, written, bytesRead - written)).bytesWritten;
          }
        }
      } finally {
        await output.close();
      }
    } finally {
      await input.close();
    }
    created.add(toPath);
    counts.files++;
  };
  const copyFolder = async (fromFolder: string, toFolder: string): Promise<void> => {
    context.signal.throwIfAborted();
    await mkdir(toFolder);
    counts.folders++;
    const entries = await readdir(fromFolder, { withFileTypes: true });
    if ((await realpath(fromFolder)) !== fromFolder)
      throw Object.assign(new Error('moved'), { code: 'ELOOP' });
    for (const entry of entries) {
      context.signal.throwIfAborted();
      const fromPath = path.join(fromFolder, entry.name);
      const toPath = path.join(toFolder, entry.name);
      // What no tool may read (a permission rule, a .env file) stays behind, however deep in the folder.
      if (
        (entry.isDirectory() || entry.isFile()) &&
        !(await checkPath(fromPath, 'read', context.phase)).allowed
      ) {
        counts.denied++;
        continue;
      }
      if (entry.isDirectory()) await copyFolder(fromPath, toPath);
      else if (entry.isFile()) await copyOneFile(fromPath, toPath);
      else counts.skipped++;
    }
  };

  try {
    if (sourceInfo.isDirectory()) {
      if (isWithin(to.realPath, from.realPath)) {
        return refuse(`${shownDestination} is inside ${shownSource}; a folder cannot be copied into itself.`);
      }
      if (destinationInfo !== undefined) {
        return refuse(`${shownDestination} already exists; choose a new destination path for the folder.`);
      }
      await mkdir(path.dirname(to.realPath), { recursive: true });
      await copyFolder(from.realPath, to.realPath);
    } else if (sourceInfo.isFile()) {
      if (to.realPath === from.realPath)
        return refuse(`${shownSource} and ${shownDestination} are the same file.`);
      if (destinationInfo?.isDirectory()) {
        return refuse(
          `${shownDestination} is a folder; give the full destination file path, e.g. ${JSON.stringify(path.posix.join(destination, path.basename(from.realPath)))}.`,
        );
      }
      await mkdir(path.dirname(to.realPath), { recursive: true });
      await copyOneFile(from.realPath, to.realPath);
    } else {
      return refuse(`${shownSource} is not a regular file or folder.`);
    }
  } catch (error) {
    if (context.signal.aborted) throw error;
    return ioFailure(error, `${shownSource} → ${shownDestination}`);
  }
  const skipped =
    counts.skipped > 0
      ? `; skipped ${counts.skipped} symbolic link${counts.skipped === 1 ? '' : 's'} or special file${counts.skipped === 1 ? '' : 's'}`
      : '';
  const denied =
    counts.denied > 0
      ? `; left out ${counts.denied} file${counts.denied === 1 ? '' : 's'} or folder${counts.denied === 1 ? '' : 's'} that no tool may read`
      : '';
  const what = sourceInfo.isDirectory()
    ? ` (${plural(counts.files, 'file')}, ${plural(counts.folders, 'folder')}${skipped}${denied})`
    : '';
  return { content: `Copied ${shownSource} to ${shownDestination}${what}.` };
}
