import { PassThrough } from 'node:stream';
import type { InteractiveIo } from './types.js';

/** Test helpers that drive interactive mode in-process (excluded from the build). */

/** An in-memory terminal: stdin is a PassThrough, output is collected, interrupts are simulated. */
export function fakeIo(cwd: string, options: { isTTY?: boolean } = {}) {
  const stdin = new PassThrough();
  const output = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const io: InteractiveIo = {
    stdout: (text) => (output.stdout += text),
    stderr: (text) => (output.stderr += text),
    stdin,
    cwd,
    env: {},
    isTTY: options.isTTY ?? false,
    onInterrupt: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    io,
    stdin,
    get stdout() {
      return output.stdout;
    },
    get stderr() {
      return output.stderr;
    },
    /** Types lines (each followed by Enter). */
    type(...lines: string[]) {
      for (const line of lines) stdin.write(`${line}\n`);
    },
    /** Ctrl-D / the pipe closes. */
    end() {
      stdin.end();
    },
    /** Ctrl-C, as the process's SIGINT handler would report it. */
    interrupt() {
      for (const listener of [...listeners]) listener();
    },
    get interruptListeners() {
      return listeners.size;
    },
  };
}

/** How often `needle` occurs in `text`. */
export const count = (text: string, needle: string): number => text.split(needle).length - 1;
