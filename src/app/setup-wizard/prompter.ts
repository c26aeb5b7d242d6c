import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CancelledError } from '../../types/errors.js';

/** Where the wizard writes: a function (like the CLI's `Write`) or anything with `write(text)`. */
export type Output = ((text: string) => void) | { write(text: string): unknown };

export function toWrite(output: Output): (text: string) => void {
  return typeof output === 'function' ? output : (text) => void output.write(text);
}

/** Thrown when the input ends (Ctrl-D, closed pipe) or Ctrl-C is pressed while a question is open. */
export class PromptCancelledError extends CancelledError {
  constructor(message = 'setup cancelled: nothing was written') {
    super(message);
    this.name = 'PromptCancelledError';
  }
}

export interface Prompter {
  /**
   * Shows `question` and resolves with the typed line (trimmed). With `hidden`, nothing typed is
   * echoed (for API keys). Rejects with {@link PromptCancelledError} when the input ends.
   */
  ask(question: string, options?: { hidden?: boolean }): Promise<string>;
  close(): void;
}

/**
 * Line prompts over `node:readline`. Lines are read through readline's async iterator, which buffers
 * them, so piped input (all answers at once, as in tests or `printf … | massgen --setup`) loses none.
 *
 * On a terminal (`isTTY`), readline runs in terminal mode and echoes keystrokes through `output`; a
 * hidden question mutes that echo, so a pasted key never reaches the screen. Without a terminal there
 * is no echo at all, and a newline is written after each answer so the transcript stays readable.
 */
export function createPrompter(io: {
  stdin: NodeJS.ReadableStream;
  stdout: (text: string) => void;
  isTTY: boolean;
}): Prompter {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      if (!muted) io.stdout(chunk.toString());
      callback();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: io.isTTY, historySize: 0 });
  // Ctrl-C in terminal mode arrives here instead of as a signal: treat it like Ctrl-D.
  rl.on('SIGINT', () => rl.close());
  const lines = rl[Symbol.asyncIterator]();
  let closed = false;
  rl.on('close', () => {
    closed = true;
  });

  return {
    async ask(question, options = {}) {
      // After the input has ended, lines it sent earlier may still be waiting in the iterator.
      if (closed) io.stdout(question);
      else {
        rl.setPrompt(question);
        rl.prompt();
      }
      muted = options.hidden === true;
      let next: IteratorResult<string>;
      try {
        next = await lines.next();
      } finally {
        const wasMuted = muted;
        muted = false;
        // The terminal's own newline was muted (hidden) or never echoed (no terminal).
        if (wasMuted || !io.isTTY) io.stdout('\n');
      }
      if (next.done) throw new PromptCancelledError();
      return next.value.trim();
    },
    close() {
      if (!closed) rl.close();
    },
  };
}
