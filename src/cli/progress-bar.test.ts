import { describe, expect, it } from 'vitest';
import type { DownloadProgress } from '../types/backend.js';
import { textWidth } from '../util/text.js';
import { createProgressBar, formatBytes, formatDuration } from './progress-bar.js';

const FILE = 'qwen2.5-1.5b-instruct-q4_k_m.gguf';
const MB = 1_000_000;
const CLEAR_TO_END = '\x1b[K';

function progress(receivedBytes: number, rest: Partial<DownloadProgress> = {}): DownloadProgress {
  return {
    file: FILE,
    receivedBytes,
    totalBytes: 986 * MB,
    bytesPerSecond: 12.3 * MB,
    secondsLeft: 38,
    done: false,
    ...rest,
  };
}

function setup(isTTY: boolean, width?: number) {
  let time = 0;
  const out: string[] = [];
  const bar = createProgressBar((text) => out.push(text), {
    isTTY,
    now: () => time,
    ...(width === undefined ? {} : { width }),
  });
  return { bar, out, advance: (ms: number) => (time += ms) };
}

describe('formatBytes', () => {
  it('uses decimal units with one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(512 * MB)).toBe('512.0 MB');
    expect(formatBytes(999_960_000)).toBe('1.0 GB');
    expect(formatBytes(1_117_320_736)).toBe('1.1 GB');
    expect(formatBytes(Number.NaN)).toBe('?');
  });
});

describe('formatDuration', () => {
  it('shows at most two units', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(37.6)).toBe('38s');
    expect(formatDuration(125)).toBe('2m 05s');
    expect(formatDuration(3720)).toBe('1h 02m');
    expect(formatDuration(Infinity)).toBe('?');
  });
});

describe('createProgressBar on a terminal', () => {
  it('redraws one line in place and ends it with a summary and a newline', () => {
    const { bar, out, advance } = setup(true, 130);
    bar(progress(512 * MB));
    expect(out).toEqual([
      `\rDownloading ${FILE}  [${'█'.repeat(16)}${'░'.repeat(14)}] 51%  512.0 MB / 986.0 MB  12.3 MB/s  38s left\x1b[K`,
    ]);
    advance(80_000);
    bar(progress(986 * MB, { done: true, secondsLeft: 0 }));
    expect(out[1]).toBe(`\rDownloaded ${FILE}  986.0 MB in 1m 20s (12.3 MB/s)\x1b[K\n`);
  });

  it('redraws at most ten times a second', () => {
    const { bar, out, advance } = setup(true);
    for (let i = 0; i < 20; i++) {
      bar(progress(i * MB));
      advance(25);
    }
    expect(out).toHaveLength(5);
  });

  it('fits narrow terminals: drops the word, then shortens the name, then the bar', () => {
    for (const width of [100, 80, 60, 40]) {
      const { bar, out } = setup(true, width);
      bar(progress(512 * MB));
      const line = (out[0] ?? '').replace('\r', '').replace(CLEAR_TO_END, '');
      expect(line.length, `width ${width}: ${line}`).toBeLessThanOrEqual(width - 1);
      expect(line).toContain('51%');
    }
    const { bar, out } = setup(true, 80);
    bar(progress(512 * MB));
    expect(out[0]).toBe(
      `\rqwen2.5-1.5b-instr…  [█████░░░░░] 51%  512.0 MB / 986.0 MB  12.3 MB/s  38s left${CLEAR_TO_END}`,
    );
  });

  it('fits a CJK or emoji file name by terminal columns, cut between characters', () => {
    const names = ['日本語モデル-量子化-四ビット版-最新.gguf', '👨‍👩‍👧‍👦🇯🇵-model-e\u0301te\u0301-q4.gguf'];
    for (const file of names) {
      for (const width of [120, 80, 60, 40, 30]) {
        const out: string[] = [];
        createProgressBar((text) => out.push(text), { isTTY: true, width, now: () => 0 })(
          progress(512 * MB, { file }),
        );
        const line = (out[0] ?? '').replace('\r', '').replace(CLEAR_TO_END, '');
        expect(textWidth(line), `width ${width}: ${line}`).toBeLessThanOrEqual(width - 1);
        expect(line).not.toMatch(/\u200D[^\p{Extended_Pictographic}]|\p{Regional_Indicator}…/u);
      }
    }
  });

  it('shows what it knows when the size is unknown', () => {
    const { bar, out } = setup(true);
    bar(progress(5 * MB, { totalBytes: null, secondsLeft: null }));
    expect(out[0]).toBe(`\rDownloading ${FILE}  5.0 MB  12.3 MB/s\x1b[K`);
  });

  it('abandon() ends a half-drawn line, once', () => {
    const { bar, out } = setup(true, 120);
    bar.abandon();
    expect(out).toEqual([]);
    bar(progress(0, { bytesPerSecond: 0, secondsLeft: null }));
    expect(out[0]).toBe(`\rDownloading ${FILE}  [${'░'.repeat(30)}] 0%  0 B / 986.0 MB\x1b[K`);
    bar.abandon();
    bar.abandon();
    expect(out.slice(1)).toEqual(['\n']);
  });
});

describe('createProgressBar in a log', () => {
  it('prints a plain line per 10% and the summary', () => {
    const { bar, out, advance } = setup(false);
    const total = 1000 * MB;
    for (let received = 0; received <= total; received += 10 * MB) {
      bar(progress(received, { totalBytes: total }));
      advance(100);
    }
    bar(progress(total, { totalBytes: total, done: true, bytesPerSecond: 100 * MB }));
    expect(out).toHaveLength(12);
    expect(out[0]).toBe(`Downloading ${FILE}: 0%  0 B / 1.0 GB  12.3 MB/s  38s left\n`);
    expect(out[5]).toBe(`Downloading ${FILE}: 50%  500.0 MB / 1.0 GB  12.3 MB/s  38s left\n`);
    expect(out[11]).toBe(`Downloaded ${FILE}  1.0 GB in 10s (100.0 MB/s)\n`);
    expect(out.join('')).not.toContain('\r');
    expect(out.join('')).not.toContain(CLEAR_TO_END);
  });

  it('prints every 10 s when the size is unknown', () => {
    const { bar, out, advance } = setup(false);
    for (let second = 0; second < 25; second++) {
      bar(progress(second * MB, { totalBytes: null, secondsLeft: null }));
      advance(1000);
    }
    expect(out).toEqual([
      `Downloading ${FILE}:  0 B  12.3 MB/s\n`,
      `Downloading ${FILE}:  10.0 MB  12.3 MB/s\n`,
      `Downloading ${FILE}:  20.0 MB  12.3 MB/s\n`,
    ]);
  });
});
