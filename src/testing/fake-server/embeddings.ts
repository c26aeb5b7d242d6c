/** Dimensions of the fake server's embedding vectors. */
export const FAKE_EMBEDDING_DIMENSIONS = 64;

/** Lower-case word tokens of at least two characters. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
}

/** FNV-1a, so the same word always lands in the same bucket (in every process). */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A deterministic embedding: a hashed bag of words, L2-normalised. Texts sharing words get close
 * vectors, which is all a retrieval test needs.
 */
export function hashedEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words(text)) vector[hash(word) % dimensions]! += 1;
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

/** The body of OpenAI's `POST /v1/embeddings` answer for a request body. */
export function embeddingsResponse(body: Record<string, unknown>): unknown {
  const input = body.input;
  const texts = Array.isArray(input) ? input.map(String) : [String(input ?? '')];
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : FAKE_EMBEDDING_DIMENSIONS;
  return {
    object: 'list',
    data: texts.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: hashedEmbedding(text, dimensions),
    })),
    model: typeof body.model === 'string' ? body.model : 'fake-embedding',
    usage: { prompt_tokens: texts.length, total_tokens: texts.length },
  };
}
