import { constants as fsConstants } from 'node:fs';
import { lstat, mkdir, open, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ToolCall } from '../types/messages.js';
import { errorCode } from '../util/guards.js';

/** The folder of an agent's workspace that holds tool results too large for its context. */
export const TOOL_RESULTS_DIR = '.tool_results';
/** Characters per token, as the core's estimate counts them. */
const CHARS_PER_TOKEN = 4;
/** read_file refuses larger files (src/tools/filesystem/definitions.ts). */
const READ_FILE_MAX_BYTES = 2 * 1024 * 1024;
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

export interface ToolResultFileOptions {
  /** The agent's workspace (absolute). Files are written only inside its `.tool_results/`. */
  workspace: string;
  /** Results longer than this many tokens go to a file. */
  thresholdTokens: number;
  /** Every secret the run knows, removed before anything is written. */
  scrub: (text: string) => string;
  /** The most characters of the note the model gets (the registry's result cap). */
  maxNoteChars: number;
}

/** A part of a file name: letters, digits, `_` and `-` only (no `.`, `/` or `..`), at most 64 characters. */
export function safeNamePart(text: string, fallback: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^[_-]+|[_-]+$/g, '');
  return cleaned === '' ? fallback : cleaned.slice(0, 64);
}

/**
 * The tool-result spill of one agent: a result over the threshold is written, scrubbed, to
 * `.tool_results/<tool>-<id>.txt` in the workspace, and the model is given its head, its tail, its size
 * and the path to read the rest with `read_file` in pages. `handle` answers null (and the result is
 * cut as usual) when the file cannot be written safely: `.tool_results` is not a real folder of the
 * workspace (a symbolic link an agent planted, say), or the disk refuses.
 */
export function toolResultFiles(options: ToolResultFileOptions) {
  const chars = options.thresholdTokens * CHARS_PER_TOKEN;
  return {
    chars,
    handle: async (call: ToolCall, content: string): Promise<string | null> => {
      const text = options.scrub(content);
      const written = await writeResultFile(options.workspace, call, text).catch(() => null);
      if (written === null) return null;
      return spillNote(written, text, options.thresholdTokens, options.maxNoteChars);
    },
  };
}

/** Writes `text` to a new file in the workspace's `.tool_results/`; its workspace-relative path. */
async function writeResultFile(workspace: string, call: ToolCall, text: string): Promise<string> {
  const root = await realpath(workspace);
  const dir = path.join(root, TOOL_RESULTS_DIR);
  await mkdir(dir).catch((error: unknown) => {
    if (errorCode(error) !== 'EEXIST') throw error;
  });
  const isOurs = async () => {
    const info = await lstat(dir);
    return info.isDirectory() && !info.isSymbolicLink() && (await realpath(dir)) === dir;
  };
  if (!(await isOurs())) throw new Error(`${TOOL_RESULTS_DIR} is not a folder of the workspace`);
  const base = `${safeNamePart(call.name, 'tool')}-${safeNamePart(call.id, 'call')}`;
  for (let n = 1; n <= 50; n++) {
    const name = n === 1 ? `${base}.txt` : `${base}-${n}.txt`;
    const file = path.join(dir, name);
    let handle;
    try {
      // O_EXCL: a new file only — never an existing one, a link, or a hard link's target.
      handle = await open(
        file,
        fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | O_NOFOLLOW,
        0o644,
      );
    } catch (error) {
      if (errorCode(error) === 'EEXIST') continue;
      throw error;
    }
    try {
      // The folder swapped for a link between the check and the open: the file is not ours to write.
      if (!(await isOurs())) {
        await unlink(file).catch(() => undefined);
        throw new Error(`${TOOL_RESULTS_DIR} changed while a result was written`);
      }
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return `${TOOL_RESULTS_DIR}/${name}`;
  }
  throw new Error('too many results of this call');
}

/** What the model reads instead of the whole result. */
function spillNote(file: string, text: string, thresholdTokens: number, maxChars: number): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  // A page of read_file about half the threshold, in whole lines.
  const average = Math.max(1, text.length / Math.max(1, lines.length));
  const pageLines = Math.max(1, Math.floor((thresholdTokens * CHARS_PER_TOKEN) / 2 / average));
  const big = Buffer.byteLength(text, 'utf8') > READ_FILE_MAX_BYTES;
  const header =
    `[This result is ${text.length.toLocaleString('en-US')} characters (about ${Math.ceil(text.length / CHARS_PER_TOKEN).toLocaleString('en-US')} tokens, ${lines.length.toLocaleString('en-US')} lines), more than the ${thresholdTokens.toLocaleString('en-US')} tokens a tool result may take here. ` +
    `It was saved whole to ${file} in your workspace; its beginning and end are below. ` +
    (big
      ? `The file is over 2 MB, more than read_file takes: read parts of it with a command (e.g. sed -n '1,${pageLines}p' ${file}) if you can run commands.]`
      : `Read the rest with read_file (path "${file}", offset_line and max_lines, e.g. max_lines ${pageLines}).]`);
  const room = Math.max(200, maxChars - header.length - 200);
  const headChars = Math.floor(room * 0.75);
  const tailChars = room - headChars;
  const omitted = Math.max(0, text.length - headChars - tailChars);
  return [
    header,
    '--- beginning ---',
    text.slice(0, headChars),
    `[… ${omitted.toLocaleString('en-US')} characters not shown: read them from ${file} …]`,
    '--- end ---',
    text.slice(text.length - tailChars),
  ].join('\n');
}
