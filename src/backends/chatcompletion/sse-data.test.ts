import { describe, expect, it } from 'vitest';
import { SseData } from './sse-data.js';

/** Every event's data when `text` arrives cut into pieces of `size` characters. */
function feed(text: string, size: number): string[] {
  const sse = new SseData();
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...sse.push(text.slice(i, i + size)));
  return out;
}

describe('SseData: the data of server-sent events', () => {
  const stream = 'data: one\n\n: a comment\nevent: x\nid: 3\ndata: two\ndata:three\n\ndata\n\n';
  it('joins data lines by newlines and skips comments and other fields, however the text is cut', () => {
    for (const size of [1, 2, 3, 5, 64]) expect(feed(stream, size)).toEqual(['one', 'two\nthree', '']);
  });

  it('takes CRLF and lone CR line ends, also a CRLF cut between its two characters', () => {
    const crlf = 'data: a\r\n\r\ndata: b\r\rdata: c\n\n';
    for (const size of [1, 2, 8, 100]) expect(feed(crlf, size)).toEqual(['a', 'b', 'c']);
  });

  it('keeps only one leading space of the value and drops an event the stream cut off', () => {
    expect(feed('data:  two spaces\n\ndata: never ended\n', 4)).toEqual([' two spaces']);
  });
});
