import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** How much of the journal is read at a time. */
const CHUNK_BYTES = 1 << 16;

/**
 * `coordination_events.json` — every event in one JSON array, indented by two spaces, exactly as
 * `JSON.stringify(events, null, 2)` — built from `events.jsonl` (one `JSON.stringify(event)` per line)
 * a chunk at a time, so a run's events are never all in memory at once. Parsing a line and stringifying
 * it again gives the same text as stringifying the event did: JSON keeps key order, and what JSON drops
 * (undefined fields) the journal line has already dropped.
 *
 * The journal must be flushed first. A line that does not parse (a write cut short by a full disk, an
 * error the journal already reported) is left out. Reads synchronously: the exit handlers use it too.
 */
export function* eventsDocument(journalPath: string): Generator<string, void, undefined> {
  const fd = openSync(journalPath, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let rest = '';
    let count = 0;
    const format = (lines: string[]): string => {
      let out = '';
      for (const line of lines) {
        const item = parseLine(line);
        if (item === undefined) continue;
        out += `${count === 0 ? '[\n  ' : ',\n  '}${JSON.stringify(item, null, 2).replace(/\n/g, '\n  ')}`;
        count++;
      }
      return out;
    };
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      const text = rest + (read === 0 ? decoder.end() : decoder.write(buffer.subarray(0, read)));
      const lines = text.split('\n');
      rest = read === 0 ? '' : (lines.pop() ?? '');
      const out = format(lines);
      if (out !== '') yield out;
      if (read === 0) break;
    }
    yield count === 0 ? '[]\n' : '\n]\n';
  } finally {
    closeSync(fd);
  }
}

function parseLine(line: string): unknown {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
