/** Shared by the media wire tests of every backend (excluded from the build, like every `*.test-support.ts`). */
import { expect } from 'vitest';
import type { WireDialect } from '../testing/fake-server/dialect.js';
import type { FakeMedia } from '../testing/fake-server/media-parts.js';
import type { FakeServer, RecordedRequest } from '../testing/fake-server/server.js';
import { sampleMedia } from '../testing/media-fixtures.js';
import type { Backend, BackendFactory, BackendSettings } from '../types/backend.js';
import type { MediaPart } from '../types/media.js';
import type { ChatMessage } from '../types/messages.js';
import { collect, request, useDialectServer } from './backend.test-support.js';

/** A media wire test's fake server, backend and sample files (see {@link useMediaWire}). */
export interface MediaWire<Body> {
  readonly server: FakeServer<Body>;
  /** One file of every kind, as {@link sampleMedia} makes them. */
  readonly media: ReturnType<typeof sampleMedia>;
  /** The backend under test on the fake server; `via` builds another backend type at the same place. */
  backend(overrides?: Partial<BackendSettings>, via?: BackendFactory): Backend;
  /** One call with `media` attached to the question; what the fake server recorded for it. */
  sendAttachments(
    media: readonly MediaPart[],
    overrides?: Partial<BackendSettings>,
  ): Promise<RecordedRequest<Body>>;
  /** One call after two tools returned `first` and `second`; what the fake server recorded for it. */
  sendToolMedia(
    first: readonly MediaPart[],
    second: readonly MediaPart[],
    overrides?: Partial<BackendSettings>,
  ): Promise<RecordedRequest<Body>>;
}

/**
 * The setup every backend's media wire test shares: a fake server speaking `dialects`, run by the
 * file's hooks, and `factory`'s backend for `model` pointed at it (its API under `basePath`, with a
 * test key the fake server does not check). A test file keeps only what its vendor sends.
 */
export function useMediaWire<Body>(
  dialects: readonly WireDialect[],
  factory: BackendFactory,
  model: string,
  basePath = '/v1',
): MediaWire<Body> {
  const fake = useDialectServer<Body>(dialects);
  const backend = (overrides: Partial<BackendSettings> = {}, via = factory): Backend =>
    via.create({
      type: via.type,
      model,
      baseUrl: `${fake.server.origin}${basePath}`,
      apiKey: 'test-key',
      providerOptions: {},
      ...overrides,
    });
  return {
    get server() {
      return fake.server;
    },
    media: sampleMedia(),
    backend,
    sendAttachments: (media, overrides) => sendOnce(backend(overrides), fake.server, attachmentsTurn(media)),
    sendToolMedia: (first, second, overrides) =>
      sendOnce(backend(overrides), fake.server, toolMediaTurn(first, second)),
  };
}

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
