/** Shared by the media wire tests of every backend (excluded from the build, like every `*.test-support.ts`). */
import { expect } from 'vitest';
import type { FakeMedia } from '../testing/fake-server/media-parts.js';
import type { FakeServer, RecordedRequest } from '../testing/fake-server/server.js';
import type { Backend } from '../types/backend.js';
import type { MediaPart } from '../types/media.js';
import type { ChatMessage } from '../types/messages.js';
import { collect, request } from './backend.test-support.js';

/** The question with the user's attachments. */
export function attachmentsTurn(media: readonly MediaPart[]): ChatMessage[] {
  return [
    { role: 'system', content: 'You are agent 1.' },
    { role: 'user', content: 'What do these files show?', media },
  ];
}

/**
 * A step in which the model called two tools that returned media (`first` and `second`), ready for the
 * model's next turn.
 */
export function toolMediaTurn(first: readonly MediaPart[], second: readonly MediaPart[]): ChatMessage[] {
  return [
    { role: 'system', content: 'You are agent 1.' },
    { role: 'user', content: 'Look at the chart.' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_a', name: 'read_media', arguments: { path: 'a' } },
        { id: 'call_b', name: 'read_media', arguments: { path: 'b' } },
      ],
    },
    { role: 'tool', toolCallId: 'call_a', toolName: 'read_media', content: 'read a', media: first },
    { role: 'tool', toolCallId: 'call_b', toolName: 'read_media', content: 'read b', media: second },
  ];
}

/** Runs one call of `backend` with `messages` and returns what the fake server recorded for it. */
export async function sendOnce<Body>(
  backend: Backend,
  server: FakeServer<Body>,
  messages: ChatMessage[],
): Promise<RecordedRequest<Body>> {
  server.enqueue({ text: 'seen' });
  await collect(backend.stream(request({ messages })));
  const recorded = server.requests.at(-1);
  if (recorded === undefined) throw new Error('the fake server recorded no request');
  return recorded;
}

/** The media the request carried (throws when the body was not JSON). */
export function mediaOf(recorded: RecordedRequest<unknown>): FakeMedia[] {
  if (recorded.view === null) throw new Error('the request body was not JSON');
  return recorded.view.media;
}

/** Asserts the server received exactly `parts`, in order, byte for byte and with their media types. */
export function expectSameFiles(received: readonly FakeMedia[], parts: readonly MediaPart[]): void {
  expect(received.map((m) => [m.kind, m.mediaType, m.data.byteLength])).toEqual(
    parts.map((p) => [p.kind, p.mediaType, p.data.byteLength]),
  );
  for (const [i, part] of parts.entries()) {
    expect(Buffer.from(received[i]!.data).equals(Buffer.from(part.data))).toBe(true);
  }
}

/** Base64 of a part's bytes, as vendors carry them. */
export const base64 = (part: MediaPart): string => Buffer.from(part.data).toString('base64');
