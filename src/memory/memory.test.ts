import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hashedEmbedding } from '../testing/fake-server/embeddings.js';
import { createSecretScrubber } from '../util/secret-scrubber.js';
import { MemoryConfigSchema } from '../config/memory-schema.js';
import { memoryContextBlock } from './context-block.js';
import { localEmbedder } from './embedders.js';
import { disagreement, fallbackMemories, parseExtraction } from './extraction.js';
import { openMemoryStore } from './lancedb-store.js';
import { tempDir } from './memory.test-support.js';
import { openRunMemory } from './run-memory.js';
import type { Embedder, MemoryHit } from './types.js';

const hashed: Embedder = {
  name: 'test:hashed',
  embed: async (texts) => texts.map((t) => hashedEmbedding(t)),
};
const item = (text: string) => ({
  text,
  kind: 'fact' as const,
  runId: 'run_1',
  agentId: 'alpha',
  scope: 'project' as const,
  source: 'save_memory',
});

/**
 * The shared tiny test model (it supports llama.cpp's embedding context): `shared/models` beside the
 * checkout, or beside a folder above it (a worktree under `wt/`).
 */
const TINY_MODEL = [1, 2, 3]
  .map((up) =>
    path.resolve(
      fileURLToPath(new URL('../..', import.meta.url)),
      '../'.repeat(up),
      'shared/models/stories260K.gguf',
    ),
  )
  .find((file) => existsSync(file));
const hasTinyModel = TINY_MODEL !== undefined;

describe('LanceDB memory store', () => {
  it('finds memories by hybrid search, forgets them by id prefix, and keeps count', async () => {
    const store = await openMemoryStore(tempDir(), { embedder: hashed });
    expect(store.mode).toBe('hybrid');
    const [paris] = await store.add([item('The capital of France is Paris.'), item('Zebras have stripes.')]);
    await store.add([item('Deploys happen on Tuesdays after review.')]);
    expect(await store.count()).toBe(3);
    const hits = await store.search('what is the capital of France?', 2);
    expect(hits[0]!.text).toContain('Paris');
    expect(hits[0]!.runId).toBe('run_1');
    expect(await store.forget([paris!.id.slice(0, 6)])).toEqual([paris!.id]);
    expect(await store.count()).toBe(2);
    expect((await store.search('capital France Paris', 5)).some((h) => h.text.includes('Paris'))).toBe(false);
    await store.close();
  });

  it('falls back to keyword search, and says why, without an embedder or with another model', async () => {
    const dir = tempDir();
    const first = await openMemoryStore(dir, { embedder: hashed });
    await first.add([item('Release notes live in docs/releases.')]);
    await first.close();
    const other = await openMemoryStore(dir, { embedder: { ...hashed, name: 'test:other' } });
    expect(other.mode).toBe('keyword');
    expect(other.fallbackReason).toMatch(/test:hashed/);
    await other.add([item('A second note about releases.')]);
    expect((await other.search('releases', 5)).length).toBe(2);
    await other.close();
    const none = await openMemoryStore(tempDir(), { embedder: null, keywordReason: 'no key' });
    expect(none.fallbackReason).toBe('no key');
    expect(await none.search('anything', 3)).toEqual([]);
    await none.close();
  });

  /**
   * What the real tiny model ranks reliably (measured: the paraphrase's cosine similarity beats every
   * unrelated sentence's by 0.05–0.08): its vectors, not its keywords, must put the paraphrase first.
   */
  const PARAPHRASES: [query: string, paraphrase: string][] = [
    ['Tom likes to eat apples.', 'Tom loves eating apples.'],
    ['Sue saw a big fish in the pond.', 'In the pond, Sue saw a big fish.'],
    ['Lily was sad because her toy broke.', 'Lily felt sad when her toy broke.'],
  ];
  const UNRELATED = [
    'The sun was hot in the sky.',
    'Dad fixed the old car in the garage.',
    'The big dog barked at the mailman.',
    'Once upon a time there was a king.',
    'Mom baked a cake for the party.',
    'It was raining outside.',
  ];
  const cosine = (a: readonly number[], b: readonly number[]) => {
    let dot = 0;
    let aa = 0;
    let bb = 0;
    a.forEach((x, i) => {
      dot += x * b[i]!;
      aa += x * x;
      bb += b[i]! * b[i]!;
    });
    return dot / Math.sqrt(aa * bb);
  };

  it.skipIf(!hasTinyModel)(
    `ranks a paraphrase above unrelated texts with the local GGUF model${hasTinyModel ? '' : ' (skipped: shared/models/stories260K.gguf not found beside the checkout)'}`,
    async () => {
      const embedder = await localEmbedder(TINY_MODEL!);
      try {
        for (const [query, paraphrase] of PARAPHRASES) {
          const [q, ...candidates] = await embedder.embed([query, paraphrase, ...UNRELATED]);
          const [close, ...far] = candidates.map((c) => cosine(q!, c));
          // Strictly above: an embedder that gave every text the same vector would tie, and fail.
          expect(close, `"${query}" against ${far.map((s) => s.toFixed(3)).join(', ')}`).toBeGreaterThan(
            Math.max(...far),
          );
        }
      } finally {
        await embedder.close?.();
      }
    },
  );
});

describe('retrieval budget', () => {
  it('never puts more than budget_chars of memories in the context, best first', async () => {
    const hits: MemoryHit[] = Array.from({ length: 20 }, (_, i) => ({
      ...item(`memory number ${i} ${'y'.repeat(80)}`),
      id: `${i}`.padStart(16, '0'),
      createdAt: '2026-01-01T00:00:00.000Z',
      score: 20 - i,
    }));
    for (const budget of [0, 50, 200, 700, 5000]) {
      const block = memoryContextBlock(hits, budget);
      expect(block.length).toBeLessThanOrEqual(budget);
    }
    expect(memoryContextBlock(hits, 700)).toContain('memory number 0 ');
    expect(memoryContextBlock(hits, 700)).not.toContain('memory number 19 ');
  });

  it('holds for the note a run gives its agents', async () => {
    const cwd = tempDir();
    const config = MemoryConfigSchema.parse({ enabled: true, budget_chars: 700, tools: false, top_k: 50 });
    const seed = await openMemoryStore(path.join(cwd, '.massgen', 'memory'), { embedder: null });
    await seed.add(Array.from({ length: 40 }, (_, i) => item(`The budget test fact ${i} concerns widgets.`)));
    await seed.close();
    const memory = await openRunMemory({
      config,
      question: 'What about widgets?',
      env: {},
      cwd,
      baseDir: cwd,
      scrubber: createSecretScrubber([]),
      interactive: false,
    });
    expect(memory.retrieved.length).toBeGreaterThan(5);
    expect(memory.systemNote.length).toBeLessThanOrEqual(700);
    expect(memory.systemNote).toContain('widgets');
    // Not all 40 fit: the budget, not the retrieval, decided.
    expect(memory.systemNote.match(/widgets/g)!.length).toBeLessThan(memory.retrieved.length);
    expect(memory.warnings.map((w) => w.code)).toEqual(['memory_keyword_only']);
    await memory.close();
  });
});

describe('extraction', () => {
  const run = {
    runId: 'run_9',
    question: 'Which database?',
    finalAnswer: 'Use Postgres.',
    winnerId: 'a',
    followUp: true,
    events: [
      { type: 'vote.cast', agentId: 'a', targetAgentId: 'a', counted: true },
      { type: 'vote.cast', agentId: 'b', targetAgentId: 'c', counted: true },
    ] as never[],
  };

  it('falls back to the decision, the disagreement and the follow-up', () => {
    const kinds = fallbackMemories(run).map((m) => m.kind);
    expect(kinds).toEqual(['decision', 'disagreement', 'feedback']);
    expect(disagreement(run.events)).toContain("b voted for c's answer");
  });

  it('reads the JSON reply, in a code fence too, and rejects anything else', () => {
    const parsed = parseExtraction(
      '```json\n{"memories":[{"kind":"decision","text":"Use Postgres."},{"kind":"x","text":"y"}]}\n```',
    );
    expect(parsed).toEqual([
      { kind: 'decision', text: 'Use Postgres.', source: 'extraction' },
      { kind: 'fact', text: 'y', source: 'extraction' },
    ]);
    expect(parseExtraction('no json here')).toBeNull();
    expect(parseExtraction('{"memories": []}')).toBeNull();
  });
});
