import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hashedEmbedding } from '../testing/fake-server/embeddings.js';
import { createSecretScrubber } from '../util/secret-scrubber.js';
import { MemoryConfigSchema } from '../config/memory-schema.js';
import { memoryContextBlock } from './context-block.js';
import { localEmbedder } from './embedders.js';
import { disagreement, fallbackMemories, parseExtraction } from './extraction.js';
import { openMemoryStore } from './lancedb-store.js';
import { openRunMemory } from './run-memory.js';
import type { Embedder, MemoryHit } from './types.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-memory-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const hashed: Embedder = {
  name: 'test:hashed',
  embed: async (texts) => texts.map((t) => hashedEmbedding(t)),
};
const item = (text: string) => ({
  text,
  kind: 'fact' as const,
  runId: 'run_1',
  scope: 'project' as const,
  source: 'test',
});

/** The shared tiny test model (it supports llama.cpp's embedding context). */
const TINY_MODEL = fileURLToPath(new URL('../../../shared/models/stories260K.gguf', import.meta.url));
const hasTinyModel = existsSync(TINY_MODEL);

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

  it.skipIf(!hasTinyModel)(
    `uses the local GGUF model for embeddings${hasTinyModel ? '' : ' (skipped: ../shared/models/stories260K.gguf not found)'}`,
    async () => {
      const embedder = await localEmbedder(TINY_MODEL);
      const store = await openMemoryStore(tempDir(), { embedder });
      await store.add([item('The cat sat on the mat.'), item('A dog ran in the park.')]);
      const hits = await store.search('cat mat', 1);
      expect(hits).toHaveLength(1);
      await store.close();
    },
    120_000,
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
    const config = MemoryConfigSchema.parse({ enabled: true, budget_chars: 300, tools: false, top_k: 50 });
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
    });
    expect(memory.retrieved.length).toBeGreaterThan(5);
    expect(memory.systemNote.length).toBeLessThanOrEqual(300);
    expect(memory.systemNote).toContain('widgets');
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
