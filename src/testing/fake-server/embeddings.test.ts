import { embedMany } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../fake-openai-server.js';
import { FAKE_EMBEDDING_DIMENSIONS, hashedEmbedding } from './embeddings.js';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(() => server.close());

describe('the fake server /v1/embeddings', () => {
  it('answers the AI SDK embedMany with deterministic hashed-bag-of-words vectors', async () => {
    const model = createOpenAI({ apiKey: 'k', baseURL: server.url }).embedding('fake-embedding');
    const { embeddings } = await embedMany({ model, values: ['red apples', 'apples red', 'blue sky'] });
    expect(embeddings).toHaveLength(3);
    expect(embeddings[0]).toHaveLength(FAKE_EMBEDDING_DIMENSIONS);
    expect(embeddings[0]).toEqual(embeddings[1]);
    expect(embeddings[2]).toEqual(hashedEmbedding('blue sky'));
    expect(server.embeddingRequests).toHaveLength(1);
    server.reset();
    expect(server.embeddingRequests).toHaveLength(0);
  });
});
