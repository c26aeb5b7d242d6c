import type { DownloadProgress } from '../../types/backend.js';

/** How {@link TransferMeter} measures and how often it reports. */
export interface TransferMeterOptions {
  file: string;
  totalBytes: number | null;
  onProgress: ((progress: DownloadProgress) => void) | undefined;
  now?: () => number;
  /** The speed is averaged over about this long, so it follows changes but does not jitter. */
  windowMs?: number;
  /** At most one report per interval (10 per second by default), plus the final one. */
  intervalMs?: number;
}

/**
 * Turns a stream of received chunks into throttled {@link DownloadProgress} reports: bytes so far,
 * speed over a short sliding window, and time left.
 */
export class TransferMeter {
  private received = 0;
  private readonly startedAt: number;
  private lastReportAt = -Infinity;
  /** `[time, received]` at past reports; the oldest one inside the window is the speed's baseline. */
  private samples: [number, number][];
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly intervalMs: number;

  constructor(private readonly options: TransferMeterOptions) {
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? 3000;
    this.intervalMs = options.intervalMs ?? 100;
    this.startedAt = this.now();
    this.samples = [[this.startedAt, 0]];
  }

  get receivedBytes(): number {
    return this.received;
  }

  /** Reports zero bytes at once, so a front end can draw its bar before the first chunk arrives. */
  start(): void {
    this.report(this.startedAt, false);
  }

  add(bytes: number): void {
    this.received += bytes;
    const now = this.now();
    if (now - this.lastReportAt >= this.intervalMs) this.report(now, false);
  }

  /** The final report (`done: true`) with the average speed of the whole transfer. */
  finish(): void {
    this.report(this.now(), true);
  }

  private report(now: number, done: boolean): void {
    this.lastReportAt = now;
    if (!this.options.onProgress) return;
    let bytesPerSecond: number;
    if (done) {
      bytesPerSecond = rate(this.received, now - this.startedAt);
    } else {
      this.samples.push([now, this.received]);
      // Keep one sample at or before the window's start as the baseline.
      while (this.samples.length > 2 && (this.samples[1]?.[0] ?? now) <= now - this.windowMs) {
        this.samples.shift();
      }
      const [since, receivedThen] = this.samples[0] ?? [this.startedAt, 0];
      bytesPerSecond = rate(this.received - receivedThen, now - since);
    }
    const total = this.options.totalBytes;
    const secondsLeft = done
      ? 0
      : total !== null && bytesPerSecond > 0
        ? Math.max(0, (total - this.received) / bytesPerSecond)
        : null;
    this.options.onProgress({
      file: this.options.file,
      receivedBytes: this.received,
      totalBytes: total,
      bytesPerSecond,
      secondsLeft,
      done,
    });
  }
}

function rate(bytes: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (bytes * 1000) / elapsedMs : 0;
}
