import type { Readable } from 'node:stream';

const MAX_LINE_LENGTH = 500;

/**
 * Keeps the last lines a server wrote to stderr. The stream is always drained: an unread pipe would
 * fill up and block a chatty server, and nothing of it may reach the user's terminal.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(private readonly maxLines = 20) {}

  /** Starts draining `stream` into the tail. */
  attach(stream: Readable | null): void {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => this.push(chunk));
    // An error on our side of the pipe must not become an unhandled 'error' event.
    stream?.on('error', () => undefined);
  }

  /** Adds raw output; exposed for tests. */
  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = (parts.pop() ?? '').slice(-MAX_LINE_LENGTH);
    for (const line of parts) this.addLine(line);
  }

  /** The last lines (including an unfinished one), oldest first, blank lines dropped. */
  snapshot(): string[] {
    const unfinished = this.partial.trim();
    const lines = unfinished ? [...this.lines, unfinished] : [...this.lines];
    return lines.slice(-this.maxLines);
  }

  /** The tail as one line for an event message, or '' when the server said nothing. */
  oneLine(maxLength = 1_000): string {
    const text = this.snapshot().join(' | ');
    return text.length <= maxLength ? text : `…${text.slice(text.length - maxLength + 1)}`;
  }

  private addLine(line: string): void {
    const trimmed = line.trim();
    if (!trimmed) return;
    this.lines.push(trimmed.length > MAX_LINE_LENGTH ? `${trimmed.slice(0, MAX_LINE_LENGTH)}…` : trimmed);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }
}
