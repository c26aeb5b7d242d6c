import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import { eventsDocument } from './events-document.js';
import { stamper, tempDir } from './log-writer.test-support.js';

const journalOf = (events: readonly RunEvent[], tail = ''): string => {
  const file = path.join(tempDir(), 'events.jsonl');
  fs.writeFileSync(file, events.map((e) => `${JSON.stringify(e)}\n`).join('') + tail);
  return file;
};

const documentOf = (journal: string): string => [...eventsDocument(journal)].join('');

/** Text that crosses the reader's 64 KiB chunks with multi-byte characters, quotes, newlines and tabs. */
function manyEvents(): RunEvent[] {
  const ev = stamper();
  const events: RunEvent[] = [
    ev(0, {
      type: 'run.started',
      question: 'Wie geht\'s? 東京は "どこ"?\n\tnext line',
      agents: [{ agentId: 'a', anonymousId: 'agent1', backendType: 'openai', model: 'm' }],
      settings: { nested: { list: [1, 2.5, null, true], empty: {}, none: [] } },
    }),
  ];
  for (let i = 0; i < 3000; i++) {
    events.push(
      ev(i + 1, {
        type: 'agent.text.delta',
        agentId: 'a',
        phase: 'coordination',
        kind: 'text',
        text: `${'é東🇯🇵'.repeat(i % 7)} line ${i}\n"quoted" \\ back\u2028slash`,
      }),
    );
  }
  return events;
}

describe('eventsDocument', () => {
  it('is byte for byte JSON.stringify(events, null, 2) of the journal, across read chunks', () => {
    const events = manyEvents();
    const journal = journalOf(events);
    expect(fs.statSync(journal).size).toBeGreaterThan(3 * 65536);
    expect(documentOf(journal)).toBe(`${JSON.stringify(events, null, 2)}\n`);
  });

  it('writes an empty array for an empty journal, as for no events', () => {
    expect(documentOf(journalOf([]))).toBe(`${JSON.stringify([], null, 2)}\n`);
  });

  it('leaves out a last line cut short (a write a full disk stopped), keeping every whole one', () => {
    const events = manyEvents().slice(0, 3);
    const text = documentOf(journalOf(events, '{"type":"agent.text.de'));
    expect(text).toBe(`${JSON.stringify(events, null, 2)}\n`);
  });

  it('is built a piece at a time, never as one string of the whole run', () => {
    const pieces = [...eventsDocument(journalOf(manyEvents()))];
    expect(pieces.length).toBeGreaterThan(3);
    const longest = Math.max(...pieces.map((p) => p.length));
    expect(longest).toBeLessThan(pieces.join('').length / 2);
  });
});
