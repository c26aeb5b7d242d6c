import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import type { InteractiveIo } from './types.js';

export const PROMPT = 'massgen> ';

/** Lines from stdin, one at a time, with a prompt; see {@link createLineInput}. */
export interface LineInput {
  /** The next line, or null at end of input (Ctrl-D, or the pipe closed). */
  next(): Promise<string | null>;
  /** Writes the prompt. */
  prompt(): void;
  /**
   * Lets go of the terminal while a turn runs, so the turn's view may read keys (and Ctrl-C reaches
   * the process as a signal). The next {@link LineInput.prompt} takes it back. A no-op for pipes.
   */
  suspend(): Promise<void>;
  /** Ctrl-C typed at the prompt of a terminal (in raw mode it never becomes a signal). */
  onInterrupt(listener: () => void): void;
  close(): void;
}

type RawStdin = NodeJS.ReadableStream & { ref?: () => unknown };

/**
 * Reads stdin with node:readline. Lines are queued as they arrive, so a pipe can hold a whole script
 * of questions and commands (read by one readline from start to end). On a terminal readline edits
 * the line and keeps a history; it is closed while a turn runs (the terminal is then the view's) and
 * opened again, with the same history, for the next prompt.
 */
export function createLineInput(io: InteractiveIo): LineInput {
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      io.stdout(chunk.toString());
      callback();
    },
  });
  if (io.isTTY) Object.assign(output, { isTTY: true, columns: io.columns ?? 80 });
  const pending: string[] = [];
  const interruptListeners: (() => void)[] = [];
  let history: string[] = [];
  let rl: Interface | null = null;
  let suspending = false;
  let ended = false;
  let closed = false;
  let waiter: ((line: string | null) => void) | null = null;
  const deliver = (line: string | null) => {
    const resolve = waiter;
    waiter = null;
    resolve?.(line);
  };

  const open = (): Interface | null => {
    if (rl !== null || ended || closed) return rl;
    (io.stdin as RawStdin).ref?.(); // a view may have unref'd it
    const created = createInterface({
      input: io.stdin,
      output,
      terminal: io.isTTY,
      prompt: PROMPT,
      history,
      historySize: 200,
    });
    created.on('line', (line) => {
      if (waiter) deliver(line);
      else pending.push(line);
    });
    created.on('history', (lines) => (history = lines));
    created.on('SIGINT', () => {
      for (const listener of interruptListeners) listener();
    });
    created.on('close', () => {
      rl = null;
      if (suspending) return;
      ended = true;
      if (waiter) deliver(null);
    });
    rl = created;
    return created;
  };

  return {
    next() {
      const line = pending.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended || closed) return Promise.resolve(null);
      open();
      return new Promise((resolve) => (waiter = resolve));
    },
    prompt() {
      open()?.prompt();
    },
    async suspend() {
      if (!io.isTTY || rl === null) return;
      suspending = true;
      try {
        rl.close();
      } finally {
        suspending = false;
      }
      // Closing pauses stdin, and Node stops reading the terminal one tick later: a view that starts
      // reading keys before then would never get any.
      await new Promise((resolve) => setImmediate(resolve));
    },
    onInterrupt(listener) {
      interruptListeners.push(listener);
    },
    close() {
      closed = true;
      const current = rl;
      rl = null;
      current?.close();
    },
  };
}
