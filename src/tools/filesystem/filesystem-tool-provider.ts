import { lstat, mkdir, readdir, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../types/errors.js';
import type { Phase } from '../../types/events.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { safeOpenForRead, safeOpenForWrite } from '../permissions/check-path.js';
import type { Access, CheckPath } from '../permissions/path-policy.js';
import type { ToolProvider } from '../tool-provider.js';
import { checkedPath, copyFileTool } from './copy-file.js';
import { DEFAULT_MAX_LINES, FILESYSTEM_TOOLS, MAX_LIST_ENTRIES, MAX_TEXT_FILE_BYTES } from './definitions.js';
import {
  formatSize,
  ioFailure,
  missing,
  plural,
  positiveInteger,
  refuse,
  stringArg,
} from './tool-results.js';

/** Options of {@link createFilesystemToolProvider}. */
export interface FilesystemToolProviderOptions {
  /** Asked before every path is touched; see `createPathChecker`. */
  checkPath: CheckPath;
  /** The agent's own workspace: copy_file writes only here, list_directory lists it by default. */
  workspace: string;
  /** Shown in errors and events. Default `filesystem`. */
  name?: string;
  /** Test hook: runs after a write was allowed and before the file is opened (e.g. to swap a symlink in). */
  beforeWriteOpen?: (realPath: string) => Promise<void>;
}

/** The text of a file, or why it is not a text file read_file and edit_file can handle. */
type TextFile = { ok: true; text: string } | { ok: false; result: ToolResult };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The built-in filesystem tools of one agent (read_file, write_file, edit_file, list_directory,
 * delete_file, copy_file). Every path goes through `checkPath` with the caller's phase, and the
 * operation then uses the real path it returns. Create one provider per agent and run: it remembers
 * which files this agent created or read, the only ones delete_file may remove.
 */
export function createFilesystemToolProvider(options: FilesystemToolProviderOptions): ToolProvider {
  const { checkPath, name = 'filesystem', beforeWriteOpen } = options;
  /** Real paths of files this agent created (write_file, copy_file) or read (read_file, edit_file). */
  const created = new Set<string>();
  const read = new Set<string>();
  let workspaceReal: string | undefined;
  const ownWorkspace = async (): Promise<string> => {
    if (workspaceReal !== undefined) return workspaceReal;
    try {
      return (workspaceReal = await realpath(options.workspace));
    } catch {
      return path.resolve(options.workspace);
    }
  };

  const check = (given: string, access: Access, phase: Phase) => checkedPath(checkPath, given, access, phase);

  const readText = async (realPath: string, shown: string): Promise<TextFile> => {
    const handle = await safeOpenForRead(realPath);
    try {
      const info = await handle.stat();
      if (info.isDirectory()) {
        return {
          ok: false,
          result: refuse(`${shown} is a folder; use list_directory to see what is in it.`),
        };
      }
      if (!info.isFile()) return { ok: false, result: refuse(`${shown} is not a regular file.`) };
      if (info.size > MAX_TEXT_FILE_BYTES) {
        return {
          ok: false,
          result: refuse(`${shown} is ${formatSize(info.size)}, more than the 2 MB this tool handles.`),
        };
      }
      const bytes = await handle.readFile();
      if (bytes.length > MAX_TEXT_FILE_BYTES) {
        return { ok: false, result: refuse(`${shown} is more than the 2 MB this tool handles.`) };
      }
      const binary = {
        ok: false,
        result: refuse(`${shown} looks like a binary file; only text (UTF-8) files can be read.`),
      } as const;
      if (bytes.includes(0)) return binary;
      try {
        return { ok: true, text: utf8.decode(bytes) };
      } catch {
        return binary;
      }
    } finally {
      await handle.close();
    }
  };

  const writeText = async (realPath: string, text: string): Promise<boolean> => {
    const { handle, created: isNew } = await safeOpenForWrite(realPath, {
      beforeOpen: beforeWriteOpen && (() => beforeWriteOpen(realPath)),
    });
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return isNew;
  };

  const readFileTool = async (args: Record<string, unknown>, phase: Phase): Promise<ToolResult> => {
    const given = stringArg(args, 'path');
    if (given === undefined) return missing('read_file', 'path');
    const offset = positiveInteger(args.offset_line, 1);
    const maxLines = positiveInteger(args.max_lines, DEFAULT_MAX_LINES);
    if (offset === undefined || maxLines === undefined) {
      return refuse(
        'Invalid arguments for read_file: offset_line and max_lines must be whole numbers of at least 1.',
      );
    }
    const shown = JSON.stringify(given);
    const checked = await check(given, 'read', phase);
    if (!checked.ok) return checked.result;
    let file: TextFile;
    try {
      file = await readText(checked.realPath, shown);
    } catch (error) {
      return ioFailure(error, shown);
    }
    if (!file.ok) return file.result;
    read.add(checked.realPath);

    const lines = file.text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    const total = lines.length;
    if (total === 0) return { content: `[${given}: empty file]` };
    if (offset > total) {
      return refuse(`${shown} has only ${plural(total, 'line')}; offset_line ${offset} is past its end.`);
    }
    const shownLines = lines.slice(offset - 1, offset - 1 + maxLines);
    const last = offset - 1 + shownLines.length;
    const more = last < total ? `; call read_file with offset_line=${last + 1} to read on` : '';
    const header = `[${given}: lines ${offset}-${last} of ${total}${more}]`;
    return { content: `${header}\n${shownLines.join('\n')}` };
  };

  const writeFileTool = async (args: Record<string, unknown>, phase: Phase): Promise<ToolResult> => {
    const given = stringArg(args, 'path');
    if (given === undefined) return missing('write_file', 'path');
    const content = stringArg(args, 'content');
    if (content === undefined) return missing('write_file', 'content');
    const shown = JSON.stringify(given);
    const checked = await check(given, 'write', phase);
    if (!checked.ok) return checked.result;
    let isNew: boolean;
    try {
      await mkdir(path.dirname(checked.realPath), { recursive: true });
      isNew = await writeText(checked.realPath, content);
    } catch (error) {
      return ioFailure(error, shown);
    }
    if (isNew) created.add(checked.realPath);
    const bytes = Buffer.byteLength(content, 'utf8');
    return { content: `${isNew ? 'Created' : 'Overwrote'} ${shown} (${plural(bytes, 'byte')}).` };
  };

  const editFileTool = async (args: Record<string, unknown>, phase: Phase): Promise<ToolResult> => {
    const given = stringArg(args, 'path');
    if (given === undefined) return missing('edit_file', 'path');
    const oldString = stringArg(args, 'old_string');
    if (oldString === undefined) return missing('edit_file', 'old_string');
    const newString = stringArg(args, 'new_string');
    if (newString === undefined) return missing('edit_file', 'new_string');
    if (oldString === '') return refuse('old_string is empty; give the exact text to replace.');
    const replaceAll = args.replace_all === true;
    const shown = JSON.stringify(given);
    const checked = await check(given, 'write', phase);
    if (!checked.ok) return checked.result;
    try {
      const file = await readText(checked.realPath, shown);
      if (!file.ok) return file.result;
      read.add(checked.realPath);
      const pieces = file.text.split(oldString);
      const count = pieces.length - 1;
      if (count === 0) {
        return refuse(
          `old_string was not found in ${shown}; read the file again and copy the text exactly, whitespace included.`,
        );
      }
      if (count > 1 && !replaceAll) {
        return refuse(
          `old_string occurs ${count} times in ${shown}; include more surrounding text so it occurs once, or set replace_all to true.`,
        );
      }
      await writeText(checked.realPath, pieces.join(newString));
      return { content: `Replaced ${plural(count, 'occurrence')} in ${shown}.` };
    } catch (error) {
      return ioFailure(error, shown);
    }
  };

  const listDirectoryTool = async (args: Record<string, unknown>, phase: Phase): Promise<ToolResult> => {
    const given = stringArg(args, 'path') ?? '.';
    const shown = JSON.stringify(given);
    const checked = await check(given, 'read', phase);
    if (!checked.ok) return checked.result;
    const folder = checked.realPath;
    try {
      const info = await lstat(folder);
      if (!info.isDirectory()) return refuse(`${shown} is a file, not a folder; use read_file to read it.`);
      const entries = await readdir(folder, { withFileTypes: true });
      // The folder must still be where it was checked, not a symlink swapped in meanwhile.
      if ((await realpath(folder)) !== folder) return ioFailure({ code: 'ELOOP' }, shown);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const lines: string[] = [];
      for (const entry of entries.slice(0, MAX_LIST_ENTRIES)) {
        if (entry.isDirectory()) lines.push(`${entry.name}/`);
        else if (entry.isSymbolicLink()) lines.push(`${entry.name} (symbolic link)`);
        else if (entry.isFile()) {
          const size = await lstat(path.join(folder, entry.name)).then(
            (s) => formatSize(s.size),
            () => 'size unknown',
          );
          lines.push(`${entry.name} (${size})`);
        } else lines.push(`${entry.name} (special file)`);
      }
      const header =
        entries.length === 0
          ? `${shown} is empty.`
          : entries.length > MAX_LIST_ENTRIES
            ? `${shown}: first ${MAX_LIST_ENTRIES} of ${entries.length} entries`
            : `${shown}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`;
      return { content: [header, ...lines].join('\n') };
    } catch (error) {
      return ioFailure(error, shown);
    }
  };

  const deleteFileTool = async (args: Record<string, unknown>, phase: Phase): Promise<ToolResult> => {
    const given = stringArg(args, 'path');
    if (given === undefined) return missing('delete_file', 'path');
    const shown = JSON.stringify(given);
    const checked = await check(given, 'write', phase);
    if (!checked.ok) return checked.result;
    const target = checked.realPath;
    try {
      const info = await lstat(target);
      if (info.isDirectory()) return refuse(`${shown} is a folder; delete_file deletes files only.`);
      if (!created.has(target) && !read.has(target)) {
        return refuse(
          `${shown} was neither created nor read by you in this run, so it may not be deleted; read it first if you are sure it should go.`,
        );
      }
      if (!info.isFile()) return refuse(`${shown} is not a regular file, so it may not be deleted.`);
      if ((await realpath(target)) !== target) return ioFailure({ code: 'ELOOP' }, shown);
      await unlink(target);
    } catch (error) {
      return ioFailure(error, shown);
    }
    created.delete(target);
    read.delete(target);
    return { content: `Deleted ${shown}.` };
  };

  return {
    name,
    start: async () => {},
    tools: (): readonly ToolDefinition[] => FILESYSTEM_TOOLS,
    async precheck(toolName: string, args: Record<string, unknown>, context: ToolContext) {
      const wanted: [unknown, Access][] =
        toolName === 'copy_file'
          ? [
              [args.source, 'read'],
              [args.destination, 'write'],
            ]
          : toolName === 'list_directory'
            ? [[args.path ?? '.', 'read']]
            : [[args.path, toolName === 'read_file' ? 'read' : 'write']];
      for (const [given, access] of wanted) {
        if (typeof given !== 'string') continue;
        const decision = await checkPath(given, access, context.phase);
        // A permission rule's denial is the rules engine's to report (it names the rule); `call` still refuses.
        if (!decision.allowed && decision.byRule !== true) return decision.reason;
      }
      return null;
    },
    async call(toolName: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      context.signal.throwIfAborted();
      const { phase } = context;
      switch (toolName) {
        case 'read_file':
          return readFileTool(args, phase);
        case 'write_file':
          return writeFileTool(args, phase);
        case 'edit_file':
          return editFileTool(args, phase);
        case 'list_directory':
          return listDirectoryTool(args, phase);
        case 'delete_file':
          return deleteFileTool(args, phase);
        case 'copy_file':
          return copyFileTool(args, context, {
            checkPath,
            workspace: ownWorkspace,
            created,
            beforeWriteOpen,
          });
        default:
          throw new ToolError(`${name} has no tool named "${toolName}"`);
      }
    },
    close: async () => {},
  };
}
