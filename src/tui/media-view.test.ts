import { describe, expect, it } from 'vitest';
import { createPlainDisplay } from '../app/plain-display.js';
import { RunEventSchema, type RunEvent } from '../types/events.js';
import type { MediaRef } from '../types/media.js';
import { inertWriter } from '../util/terminal-text.js';
import { AGENTS, QUESTION, eventBuilder } from './fixtures.test-support.js';
import { LiveViewStore } from './store.js';

const ref = (name: string, bytes: number, kind: MediaRef['kind'] = 'image'): MediaRef => ({
  name,
  path: name,
  mediaType: kind === 'image' ? 'image/png' : 'audio/mpeg',
  kind,
  bytes,
  sha256: 'a'.repeat(64),
});

/** A run that started with two attachments and whose agent read a workspace image with read_media. */
function runWithMedia(): RunEvent[] {
  const { emit, events } = eventBuilder();
  emit({
    type: 'run.started',
    question: QUESTION,
    agents: AGENTS.slice(0, 1),
    settings: {},
    attachments: [ref('chart.png', 12 * 1024), ref('evil\u001b]0;pwned\u0007.mp3', 3 * 1024 * 1024, 'audio')],
  } as never);
  emit({
    type: 'tool.call.started',
    agentId: 'gpt',
    phase: 'coordination',
    callId: 'c1',
    toolName: 'read_media',
    arguments: { path: 'plot.png' },
  } as never);
  emit({
    type: 'tool.call.finished',
    agentId: 'gpt',
    phase: 'coordination',
    callId: 'c1',
    toolName: 'read_media',
    result: 'Showing "plot.png" (image/png, 800 B).',
    isError: false,
    durationMs: 3,
    media: [ref('plot.png', 800)],
  } as never);
  // A replay reads the events back from events.jsonl: they round-trip through the schema.
  return events.map((e) => RunEventSchema.parse(JSON.parse(JSON.stringify(e))) as RunEvent);
}

describe('media in the terminal views (live, plain, and a replay of the log)', () => {
  it('the live view names each attachment and each tool media by name, kind and size, inert', () => {
    const store = new LiveViewStore({ flushMs: 60_000 });
    for (const event of runWithMedia()) store.handle(event);
    store.flush();
    const { view } = store.getSnapshot();
    const started = view.timeline.find((t) => t.kind === 'run')?.text ?? '';
    expect(started).toContain('attached 🖼 chart.png (image, 12 KB), 🔊 evil␛]0;pwned␇.mp3 (audio, 3 MB)');
    expect(started).not.toContain('\u001b');
    const tool = view.agents['gpt']?.transcript.find((e) => e.kind === 'tool');
    expect(tool).toMatchObject({ result: expect.stringContaining('🖼 plot.png (image, 800 B)') });
  });

  it('the plain view prints an Attached line and the media of a tool result', () => {
    let out = '';
    const display = createPlainDisplay(inertWriter((text) => (out += text)));
    for (const event of runWithMedia()) display(event);
    expect(out).toContain('Attached: 🖼 chart.png (image, 12 KB), 🔊 evil␛]0;pwned␇.mp3 (audio, 3 MB)\n');
    expect(out).toContain(
      '[gpt] ↳ read_media: Showing "plot.png" (image/png, 800 B). [🖼 plot.png (image, 800 B)]\n',
    );
    expect(out).not.toContain('\u001b');
  });
});
