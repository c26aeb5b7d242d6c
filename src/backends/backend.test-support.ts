/** Test helpers shared by the backend tests (excluded from the build, like every `*.test-support.ts`). */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../testing/fake-openai-server.js';
import type { WireDialect } from '../testing/fake-server/dialect.js';
import { startFakeServer, type FakeServer } from '../testing/fake-server/server.js';
import type { ModelRequest, ModelStreamPart } from '../types/backend.js';
import type { ChatMessage, ToolDefinition } from '../types/messages.js';

/** Test helpers shared by the backend tests (excluded from the build). */

/**
 * Starts a server before the file's tests, resets it before each test and closes it after them all.
 * Read `.server` inside tests and hooks only (it is set in `beforeAll`).
 */
function useServer<Server extends { reset(): void; close(): Promise<void> }>(
  start: () => Promise<Server>,
): { readonly server: Server } {
  const holder = {} as { server: Server };
  beforeAll(async () => {
    holder.server = await start();
  });
  afterAll(async () => {
    await holder.server.close();
  });
  beforeEach(() => {
    holder.server.reset();
  });
  return holder;
}

/** A fake model server speaking `dialects`, run by the file's hooks. */
export function useDialectServer<Body = Record<string, unknown>>(
  dialects: readonly WireDialect[],
): { readonly server: FakeServer<Body> } {
  return useServer(() => startFakeServer<Body>(dialects));
}

/** The fake OpenAI Chat Completions server (`.server.url` ends in `/v1`), run by the file's hooks. */
export function useOpenAIServer(): { readonly server: FakeOpenAIServer } {
  return useServer(() => startFakeOpenAIServer());
}

/** One streamed call: the user asks `Hello?`, no tools, a fresh signal; `overrides` replace fields. */
export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [{ role: 'user', content: 'Hello?' }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every part of a stream, in order (rejects when the stream throws). */
export async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** What a stream threw; throws itself when the stream ended normally. */
export async function failure(stream: AsyncIterable<ModelStreamPart>): Promise<unknown> {
  try {
    await collect(stream);
  } catch (error) {
    return error;
  }
  throw new Error('expected the stream to fail');
}

/** The texts of the `type` deltas, one entry per delta. */
export const textOf = (parts: ModelStreamPart[], type: 'text-delta' | 'reasoning-delta'): string[] =>
  parts.flatMap((p) => (p.type === type ? [p.text] : []));

/** A function tool `lookup({ query })`. */
export const lookupTool: ToolDefinition = {
  name: 'lookup',
  description: 'Looks something up.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

/**
 * A conversation so far: system `You are agent 1.`, user `Find it.`, an assistant `Searching.` that
 * calls `lookup({ query: 'q' })` with id `callId`, and that call's result `found 3 results`.
 */
export function lookupHistory(callId = 'call_a'): ChatMessage[] {
  return [
    { role: 'system', content: 'You are agent 1.' },
    { role: 'user', content: 'Find it.' },
    {
      role: 'assistant',
      content: 'Searching.',
      toolCalls: [{ id: callId, name: 'lookup', arguments: { query: 'q' } }],
    },
    { role: 'tool', toolCallId: callId, toolName: 'lookup', content: 'found 3 results' },
  ];
}
