import { closeSync, openSync, writeSync } from 'node:fs';
import type { RunEvent } from '../types/events.js';

/** Lines wait at most this long in memory before they reach the file. */
export const JOURNAL_FLUSH_MS = 200;

/**
 * `events.jsonl`: every event as one JSON line, appended while the run goes on. Lines are buffered
 * for at most {@link JOURNAL_FLUSH_MS} and then written with one synchronous append: a write of whole
 * lines to a file opened with `O_APPEND` either lands or not, so after `kill -9` the file holds every
 * event up to the last flush and every complete line parses. Synchronous on purpose: order is kept
 * without a queue, and the crash and signal paths can use the same code.
 */
export class EventJournal {
  private fd: number | null;
  private buffer: string[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** Opens (creates) the file for appending. Throws when it cannot: the caller reports the folder. */
  constructor(
    readonly file: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.fd = openSync(file, 'a', 0o600);
  }

  append(event: RunEvent): void {
    if (this.fd === null) return;
    this.buffer.push(`${JSON.stringify(event)}\n`);
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, JOURNAL_FLUSH_MS);
      // The run's end flushes what is left; a pending timer must not keep a finished process alive.
      this.timer.unref();
    }
  }

  /** Writes what is buffered now. */
  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.fd === null || this.buffer.length === 0) return;
    const data = this.buffer.join('');
    this.buffer = [];
    try {
      const bytes = Buffer.from(data, 'utf8');
      for (let offset = 0; offset < bytes.length;) offset += writeSync(this.fd, bytes, offset);
    } catch (error) {
      this.onError(error);
    }
  }

  /** Flushes and closes; later appends are dropped. */
  close(): void {
    this.flush();
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch (error) {
      this.onError(error);
    }
    this.fd = null;
  }
}
