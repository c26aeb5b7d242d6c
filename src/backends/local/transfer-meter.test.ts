import { describe, expect, it } from 'vitest';
import type { DownloadProgress } from '../../types/backend.js';
import { TransferMeter } from './transfer-meter.js';

function meter(totalBytes: number | null) {
  let time = 1_000;
  const reports: DownloadProgress[] = [];
  const m = new TransferMeter({
    file: 'm.gguf',
    totalBytes,
    onProgress: (p) => reports.push(p),
    now: () => time,
    windowMs: 1000,
  });
  return { m, reports, advance: (ms: number) => (time += ms) };
}

describe('TransferMeter', () => {
  it('reports zero at start, then at most once per 100 ms, then done', () => {
    const { m, reports, advance } = meter(10_000);
    m.start();
    for (let i = 0; i < 10; i++) {
      advance(20);
      m.add(100);
    }
    m.finish();
    expect(reports.map((r) => r.receivedBytes)).toEqual([0, 500, 1000, 1000]);
    expect(reports.map((r) => r.done)).toEqual([false, false, false, true]);
    expect(reports[0]).toEqual({
      file: 'm.gguf',
      receivedBytes: 0,
      totalBytes: 10_000,
      bytesPerSecond: 0,
      secondsLeft: null,
      done: false,
    });
  });

  it('averages the speed over the recent window, so it follows a change of pace', () => {
    const { m, reports, advance } = meter(1_000_000);
    m.start();
    // 2 s at 10 kB/s, then 2 s at 100 kB/s.
    for (let i = 0; i < 20; i++) {
      advance(100);
      m.add(1_000);
    }
    expect(reports.at(-1)?.bytesPerSecond).toBeCloseTo(10_000, -2);
    for (let i = 0; i < 20; i++) {
      advance(100);
      m.add(10_000);
    }
    const last = reports.at(-1);
    expect(last?.bytesPerSecond).toBeCloseTo(100_000, -3);
    expect(last?.secondsLeft).toBeCloseTo((1_000_000 - 220_000) / (last?.bytesPerSecond ?? 1), 5);
    m.finish();
    expect(reports.at(-1)).toMatchObject({ done: true, secondsLeft: 0, bytesPerSecond: 55_000 });
  });

  it('leaves time left unknown without a total', () => {
    const { m, reports, advance } = meter(null);
    m.start();
    advance(500);
    m.add(5_000);
    expect(reports.at(-1)).toMatchObject({ totalBytes: null, bytesPerSecond: 10_000, secondsLeft: null });
  });
});
