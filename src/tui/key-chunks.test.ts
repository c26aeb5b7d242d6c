import { describe, expect, it } from 'vitest';
import { KeyDecoder, keysOfChunk } from './key-chunks.js';

describe('KeyDecoder: every key counts, however the bytes arrive', () => {
  it('splits a plain chunk into its keys: text then Enter is text then Enter', () => {
    expect(keysOfChunk('hi\r')).toEqual([{ input: 'h' }, { input: 'i' }, { input: '', return: true }]);
    expect(keysOfChunk('a\r\nb')).toEqual([{ input: 'a' }, { input: '', return: true }, { input: 'b' }]);
    expect(keysOfChunk('x\u007f\t\u0003')).toEqual([
      { input: 'x' },
      { input: '', delete: true },
      { input: '', tab: true },
      { input: 'c', ctrl: true },
    ]);
    // A character outside the BMP is one key, not two halves.
    expect(keysOfChunk('é😀')).toEqual([{ input: 'é' }, { input: '😀' }]);
  });

  it('passes a named key through, and splits a command key from the keys after it', () => {
    const decoder = new KeyDecoder();
    expect(decoder.decode('', { return: true })).toEqual([{ kind: 'key', key: { input: '', return: true } }]);
    expect(decoder.decode('ma', {})).toEqual([
      { kind: 'key', key: { input: 'm' } },
      { kind: 'key', key: { input: 'a' } },
    ]);
  });

  it('takes a bracketed paste as text, over several reads, Enter and q included', () => {
    const decoder = new KeyDecoder();
    expect(decoder.decode('[200~', {})).toEqual([]);
    expect(decoder.pasting).toBe(true);
    expect(decoder.decode('line one', {})).toEqual([]);
    expect(decoder.decode('', { return: true })).toEqual([]);
    expect(decoder.decode('q', {})).toEqual([]);
    expect(decoder.decode('[201~', {})).toEqual([{ kind: 'paste', text: 'line one\rq' }]);
    expect(decoder.pasting).toBe(false);
    expect(decoder.decode('q', {})).toEqual([{ kind: 'key', key: { input: 'q' } }]);
  });
});
