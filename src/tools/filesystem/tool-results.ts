import type { ToolResult } from '../../types/tool.js';
import { errorCode } from '../../util/guards.js';

/** What the filesystem tools answer: refusals and failures as sentences the model can act on. */

/** A refusal or an expected failure the model can act on. */
export function refuse(content: string): ToolResult {
  return { content, isError: true };
}

/** Turns the usual I/O failures into a sentence about the path the model gave; anything else is rethrown. */
export function ioFailure(error: unknown, shown: string): ToolResult {
  switch (errorCode(error)) {
    case 'ENOENT':
      return refuse(`${shown} does not exist.`);
    case 'EISDIR':
      return refuse(`${shown} is a folder, not a file.`);
    case 'ENOTDIR':
      return refuse(`${shown} cannot be used: a part of the path is a file, not a folder.`);
    case 'EEXIST':
      return refuse(`${shown} cannot be created: a file is in the way of a folder it needs.`);
    case 'ELOOP':
      return refuse(
        `${shown} was replaced by a symbolic link while it was being used; the operation was refused.`,
      );
    case 'EFTYPE':
    case 'ENXIO':
      return refuse(`${shown} is not a regular file (a device, socket or pipe).`);
    case 'EACCES':
    case 'EPERM':
      return refuse(`${shown} cannot be accessed: the operating system denied permission.`);
    default:
      throw error;
  }
}

/** `undefined` unless `args[key]` is a string. */
export function stringArg(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

/** The refusal for an argument that is not a string. */
export function missing(tool: string, key: string): ToolResult {
  return refuse(
    `Invalid arguments for ${tool}: "${key}" must be a string. Fix the arguments and call the tool again.`,
  );
}

/** `fallback` when not given, the value when it is a whole number of at least 1, else undefined. */
export function positiveInteger(value: unknown, fallback: number): number | undefined {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined;
}

/** `512 B`, `1.5 KB`, `2.0 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/** `1 file`, `2 files`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
