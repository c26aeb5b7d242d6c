/**
 * The `data` of each event of a server-sent-event stream (the WHATWG event-stream format: lines ended
 * by CRLF, LF or CR; `data:` lines joined by newlines; an empty line ends an event; comments and the
 * `event`, `id` and `retry` fields carry nothing a chat completion needs). Text goes in as it arrives,
 * in pieces cut anywhere; an event is handed out once its empty line has come, and one the stream cut
 * off is dropped, as an EventSource does. No streams and no promises: a model's reply has hundreds of
 * events, and this runs for each.
 */
export class SseData {
  /** Text after the last complete line. */
  private rest = '';
  private data: string[] = [];

  /** Takes the next piece of the stream; returns the data of the events it completed. */
  push(text: string): string[] {
    const events: string[] = [];
    const input = this.rest + text;
    let start = 0;
    for (;;) {
      const lf = input.indexOf('\n', start);
      const cr = input.indexOf('\r', start);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      // A CR at the very end may be the first half of a CRLF: decided by the next piece.
      if (end === -1 || (end === cr && end === input.length - 1)) break;
      this.line(input.slice(start, end), events);
      start = end + 1;
      if (end === cr && input.charCodeAt(start) === 10) start++;
    }
    this.rest = input.slice(start);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith('data:')) {
      this.data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
    } else if (line === 'data') {
      this.data.push('');
    }
  }
}
