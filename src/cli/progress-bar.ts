import type { DownloadProgress } from '../types/backend.js';
import { inertText } from '../util/terminal-text.js';
import { textWidth, truncate } from '../util/text.js';
import { formatDecimalBytes } from '../util/decimal-bytes.js';

/** How {@link createProgressBar} draws. */
export interface ProgressBarOptions {
  /** A terminal gets one line redrawn in place; anything else (a log, a pipe) gets plain lines. */
  isTTY: boolean;
  /** Terminal columns; default 80. The line never uses the last column, so it never wraps. */
  width?: number;
  now?: () => number;
}

/** Draws {@link DownloadProgress} reports; call {@link ProgressBar.abandon} when a download fails. */
export interface ProgressBar {
  (progress: DownloadProgress): void;
  /** Ends a half-drawn line (the download failed), so the next output starts on a fresh line. */
  abandon(): void;
}

const MIN_BAR = 10;
const MAX_BAR = 30;
/** A file name is never shortened below this many columns. */
const MIN_NAME = 12;
/** Terminal redraws at most this often (node-llama-cpp's downloader reports every chunk it reads). */
const REDRAW_MS = 100;
/** Without a known size, plain output prints a line this often. */
const PLAIN_UNKNOWN_SIZE_MS = 10_000;

/**
 * A download progress view. On a terminal:
 * `Downloading model.gguf  [██████░░░░░░] 52%  512.0 MB / 986.0 MB  12.3 MB/s  38s left`, redrawn
 * with `\r`, replaced at the end by `Downloaded model.gguf  986.0 MB in 1m 20s (12.3 MB/s)` and a
 * newline. Elsewhere one plain line per 10% (every 10 s when the size is unknown) and the same
 * final line, so logs stay readable.
 */
export function createProgressBar(write: (text: string) => void, options: ProgressBarOptions): ProgressBar {
  const now = options.now ?? Date.now;
  const width = Math.max(20, options.width ?? 80);
  let lineOpen = false;
  let lastDraw = -Infinity;
  let startedAt: number | undefined;
  let file: string | undefined;
  /** Plain output: the last 10% step printed (-1: none yet), or the time of the last line. */
  let lastStep = -1;
  let lastPlainAt = -Infinity;

  const draw = (progress: DownloadProgress): void => {
    const time = now();
    if (progress.file !== file) {
      file = progress.file;
      startedAt = time;
      lastStep = -1;
      lastPlainAt = -Infinity;
    }
    if (progress.done) {
      const summary = finalLine(progress, time - (startedAt ?? time));
      write(options.isTTY ? `\r${summary}\x1b[K\n` : `${summary}\n`);
      lineOpen = false;
      file = undefined;
      return;
    }
    if (options.isTTY) {
      if (time - lastDraw < REDRAW_MS && lineOpen) return;
      lastDraw = time;
      write(`\r${terminalLine(progress, width - 1)}\x1b[K`);
      lineOpen = true;
      return;
    }
    const total = progress.totalBytes;
    if (total !== null && total > 0) {
      const step = Math.floor(percent(progress.receivedBytes, total) / 10);
      if (step <= lastStep) return;
      lastStep = step;
    } else {
      if (time - lastPlainAt < PLAIN_UNKNOWN_SIZE_MS) return;
      lastPlainAt = time;
    }
    write(`${plainLine(progress)}\n`);
  };

  const bar = draw as ProgressBar;
  bar.abandon = () => {
    if (lineOpen) write('\n');
    lineOpen = false;
    file = undefined;
  };
  return bar;
}

/** Sizes as model hubs show them (util/decimal-bytes). */
export const formatBytes = formatDecimalBytes;

/** `38s`, `2m 05s`, `1h 02m`: whole seconds, two units at most. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const total = Math.round(seconds);
  if (total < 60) return `${total}s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes}m ${String(total % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

function percent(received: number, total: number): number {
  return Math.min(100, Math.max(0, Math.floor((received / total) * 100)));
}

/** Size, speed and time left: the parts after the percentage, those that are known. */
function details(progress: DownloadProgress): string[] {
  const parts: string[] = [];
  const total = progress.totalBytes;
  parts.push(
    total === null
      ? formatBytes(progress.receivedBytes)
      : `${formatBytes(progress.receivedBytes)} / ${formatBytes(total)}`,
  );
  if (progress.bytesPerSecond > 0) parts.push(`${formatBytes(progress.bytesPerSecond)}/s`);
  if (progress.secondsLeft !== null && progress.bytesPerSecond > 0) {
    parts.push(`${formatDuration(progress.secondsLeft)} left`);
  }
  return parts;
}

/**
 * The terminal line, fitted into `columns` (terminal columns: a CJK file name takes two per
 * character). Layouts in order of preference: everything; without the word "Downloading"; with the
 * file name shortened; without the bar.
 */
function terminalLine(progress: DownloadProgress, columns: number): string {
  const total = progress.totalBytes ?? 0;
  const known = total > 0;
  const tail = [...(known ? [`${percent(progress.receivedBytes, total)}%`] : []), ...details(progress)].join(
    '  ',
  );
  const bar = (cells: number): string => {
    if (!known) return '';
    const filled = Math.min(cells, Math.round((cells * progress.receivedBytes) / total));
    return `[${'█'.repeat(filled)}${'░'.repeat(cells - filled)}] `;
  };
  const barExtra = known ? 3 : 0;
  const minimumBar = known ? MIN_BAR : 0;
  const name = inertText(progress.file);
  const nameWidth = textWidth(name);
  for (const prefix of ['Downloading ', '']) {
    const room = columns - prefix.length - nameWidth - 2 - tail.length - barExtra;
    if (room >= minimumBar) return `${prefix}${name}  ${bar(Math.min(MAX_BAR, room))}${tail}`;
  }
  const nameRoom = columns - 2 - tail.length - barExtra - minimumBar;
  if (nameRoom >= MIN_NAME) return `${truncate(name, nameRoom)}  ${bar(MIN_BAR)}${tail}`;
  return truncate(`${truncate(name, MIN_NAME)}  ${tail}`, columns);
}

function plainLine(progress: DownloadProgress): string {
  const total = progress.totalBytes;
  const head =
    total !== null && total > 0
      ? `Downloading ${progress.file}: ${percent(progress.receivedBytes, total)}%`
      : `Downloading ${progress.file}:`;
  return `${head}  ${details(progress).join('  ')}`;
}

function finalLine(progress: DownloadProgress, elapsedMs: number): string {
  const speed = progress.bytesPerSecond > 0 ? ` (${formatBytes(progress.bytesPerSecond)}/s)` : '';
  return `Downloaded ${progress.file}  ${formatBytes(progress.receivedBytes)} in ${formatDuration(elapsedMs / 1000)}${speed}`;
}
