import { mkdir, open, readFile, rename, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import { errorCode, isRecord } from '../util/guards.js';
import { lineFailed, type BatchResultLine } from './result-line.js';

/** A batch's output file, opened for appending: what is in it already, and a way to add lines. */
export interface ResultFile {
  readonly path: string;
  /** Ids with a line already (from an earlier, interrupted run): skipped on resume. */
  readonly done: ReadonlySet<string>;
  /** What was repaired or ignored on opening, one sentence each. */
  readonly notes: readonly string[];
  /**
   * Totals of the lines already there, so a resumed batch counts its cost and tokens whole;
   * `costUnknown`: lines whose cost is not (wholly) known.
   */
  readonly previous: { costUsd: number; costUnknown: number; tokens: number; failed: number };
  /**
   * Appends one line and flushes it to disk before resolving, so a crash right after loses nothing.
   * Returns false (and writes nothing) for an id that already has a line.
   */
  append(line: BatchResultLine): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenResultFileOptions {
  /** Drop the lines of questions that failed, so they run again. */
  redoErrors?: boolean;
}

interface LineFacts {
  id: string;
  failed: boolean;
  costUsd: number;
  costKnown: boolean;
  tokens: number;
}

const numberOr0 = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** What resuming needs from a line: its id (a line without one is not a result), failure, cost. */
const idOf = (text: string): LineFacts | null => {
  try {
    const value: unknown = JSON.parse(text);
    if (!isRecord(value) || typeof value.id !== 'string') return null;
    return {
      id: value.id,
      failed: lineFailed(value),
      costUsd: numberOr0(value.cost_usd),
      costKnown: value.cost_known !== false,
      tokens: isRecord(value.tokens) ? numberOr0(value.tokens.total) : 0,
    };
  } catch {
    return null;
  }
};

/**
 * Opens (or creates) a batch's output file for resuming. A last line without its newline is what a
 * crash mid-write leaves: it is cut off (or, when it is a whole line after all, given its newline).
 * Lines that are not results are kept and ignored.
 *
 * @throws {ConfigError} when the file cannot be read or written.
 */
export async function openResultFile(file: string, options: OpenResultFileOptions = {}): Promise<ResultFile> {
  const notes: string[] = [];
  const done = new Set<string>();
  const previous = { costUsd: 0, costUnknown: 0, tokens: 0, failed: 0 };
  const fail = (error: unknown, what: string, hint = 'pass --output FILE in a folder you can write to') =>
    new ConfigError(`cannot ${what} the batch output ${file}: ${errorCode(error) ?? String(error)}`, {
      hint,
    });
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw fail(error, 'read');
    try {
      await mkdir(path.dirname(file), { recursive: true });
    } catch (mkdirError) {
      throw fail(mkdirError, 'create');
    }
  }
  try {
    if (text !== '' && !text.endsWith('\n')) {
      const cut = text.lastIndexOf('\n') + 1;
      const tail = text.slice(cut);
      if (idOf(tail)) {
        await writeFile(file, '\n', { flag: 'a' });
        text += '\n';
      } else {
        await truncate(file, Buffer.byteLength(text.slice(0, cut)));
        text = text.slice(0, cut);
        notes.push(
          `dropped an incomplete last line (${tail.length} characters) left by an interrupted write`,
        );
      }
    }
    const kept: string[] = [];
    let dropped = 0;
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      const parsed = idOf(line);
      if (!parsed) {
        notes.push(`line ${index + 1} is not a result line: ignored`);
        kept.push(line);
        return;
      }
      if (options.redoErrors && parsed.failed) {
        dropped++;
        return;
      }
      if (done.has(parsed.id)) return; // Counted once, like the rerun treats it.
      done.add(parsed.id);
      previous.costUsd += parsed.costUsd;
      if (!parsed.costKnown) previous.costUnknown++;
      previous.tokens += parsed.tokens;
      if (parsed.failed) previous.failed++;
      kept.push(line);
    });
    if (dropped > 0) {
      // Written beside, then renamed over: a crash leaves either the old file or the new one.
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, kept.map((line) => `${line}\n`).join(''));
      await rename(temporary, file);
      notes.push(`removed ${dropped} failed line${dropped === 1 ? '' : 's'} to run again (--redo-errors)`);
    }
  } catch (error) {
    throw fail(error, 'repair');
  }
  let handle: FileHandle;
  try {
    handle = await open(file, 'a');
  } catch (error) {
    throw fail(error, 'open');
  }
  // One write at a time, in order: each line is whole on disk before the next starts.
  let tail: Promise<unknown> = Promise.resolve();
  return {
    path: file,
    done,
    notes,
    previous,
    append(line) {
      if (done.has(line.id)) return Promise.resolve(false);
      done.add(line.id);
      const write = tail.then(async () => {
        try {
          await handle.write(`${JSON.stringify(line)}\n`);
          await handle.datasync();
        } catch (error) {
          // A full disk or a lost mount: name the file, and say nothing finished is lost — a line cut
          // off mid-write is dropped when the file is opened again, and its question runs again.
          throw fail(
            error,
            'write to',
            'free some space (or pass another --output) and run the same command again: the batch resumes where it stopped',
          );
        }
        return true;
      });
      tail = write.catch(() => undefined);
      return write;
    },
    async close() {
      await tail;
      await handle.close();
    },
  };
}
