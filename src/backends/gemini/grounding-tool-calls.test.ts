import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { groundingSearchOf, withGroundingToolCalls } from './grounding-tool-calls.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

const grounding = {
  webSearchQueries: ['q1'],
  groundingChunks: [{ web: { uri: 'https://a.example/', title: 'a.example' } }, { retrievedContext: {} }],
};

function finish(groundingMetadata: unknown): LanguageModelV3StreamPart {
  return {
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'STOP' },
    usage,
    providerMetadata: { google: { groundingMetadata: groundingMetadata as null } },
  };
}

async function streamOf(chunks: LanguageModelV3StreamPart[]): Promise<LanguageModelV3StreamPart[]> {
  const model = withGroundingToolCalls(
    new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks }) }) }),
  );
  const { stream } = await model.doStream({ prompt: [] });
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('withGroundingToolCalls', () => {
  it('adds a google_search call and result right before finish', async () => {
    const parts = await streamOf([{ type: 'text-delta', id: '0', delta: 'hi' }, finish(grounding)]);
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'tool-call', 'tool-result', 'finish']);
    expect(parts[1]).toMatchObject({
      toolName: 'google_search',
      input: '{"queries":["q1"]}',
      providerExecuted: true,
    });
    expect(parts[2]).toMatchObject({
      toolName: 'google_search',
      toolCallId: (parts[1] as { toolCallId: string }).toolCallId,
      result: { sources: [{ url: 'https://a.example/', title: 'a.example' }] },
    });
  });

  it('adds nothing without grounding, or when the stream already showed a server-side search', async () => {
    expect((await streamOf([finish(null)])).map((p) => p.type)).toEqual(['finish']);
    const serverSearch: LanguageModelV3StreamPart = {
      type: 'tool-call',
      toolCallId: 's1',
      toolName: 'server:GOOGLE_SEARCH_WEB',
      input: '{}',
      providerExecuted: true,
      dynamic: true,
    };
    expect((await streamOf([serverSearch, finish(grounding)])).map((p) => p.type)).toEqual([
      'tool-call',
      'finish',
    ]);
  });
});

describe('groundingSearchOf', () => {
  it('reads queries and web sources, and ignores metadata that shows no search', () => {
    expect(groundingSearchOf(grounding)).toEqual({
      queries: ['q1'],
      sources: [{ url: 'https://a.example/', title: 'a.example' }],
    });
    expect(groundingSearchOf({ webSearchQueries: [], groundingChunks: [] })).toBeUndefined();
    expect(groundingSearchOf(null)).toBeUndefined();
    expect(groundingSearchOf('nope')).toBeUndefined();
  });
});
