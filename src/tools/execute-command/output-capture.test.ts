import { describe, expect, it } from 'vitest';
import { OutputCapture } from './output-capture.js';

describe('OutputCapture', () => {
  it('returns short output unchanged', () => {
    const capture = new OutputCapture(100);
    capture.push(Buffer.from('hello '));
    capture.push(Buffer.from('world\n'));
    expect(capture.text()).toBe('hello world\n');
    expect(capture.totalBytes).toBe(12);
  });

  it('keeps the start and the end of long output, with a note', () => {
    const capture = new OutputCapture(100);
    capture.push(Buffer.from('S'.repeat(50)));
    for (let i = 0; i < 1000; i++) capture.push(Buffer.from('m'.repeat(1000)));
    capture.push(Buffer.from('E'.repeat(30)));
    const text = capture.text();
    expect(text.startsWith('S'.repeat(50))).toBe(true);
    expect(text).toContain(`${'E'.repeat(20)}\n[output truncated: 100 of 1000080 bytes shown]`);
    expect(text).toMatch(/\[… 999980 bytes omitted …\]/);
    expect(text.length).toBeLessThan(200);
  });

  it('keeps only what it shows, however much arrives', () => {
    const capture = new OutputCapture(1_000);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let i = 0; i < 2_000; i++) capture.push(chunk);
    expect(capture.totalBytes).toBe(2_000 * 64 * 1024);
    const text = capture.text();
    expect(text).toMatch(/\[output truncated: 1000 of 131072000 bytes shown\]$/);
  });

  it('counts characters, not bytes, when cutting text', () => {
    const capture = new OutputCapture(10, 0);
    capture.push(Buffer.from('ééééééééééééééé'));
    const text = capture.text();
    expect(text.startsWith('ééééé')).toBe(true);
    expect(text).toMatch(/\[output truncated: 10 of 30 bytes shown\]$/);
  });
});
