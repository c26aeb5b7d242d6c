import { copyFileSync, mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../types/errors.js';
import { failure, request } from '../backend.test-support.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { LlamaLanguageModel } from './llama-language-model.js';
import { describeWithTinyModel, TINY_MODEL_PATH, tinyModelKey } from './local.test-support.js';
import { POLL } from '../../../test/support/wait.js';
import {
  acquireLocalModel,
  assertPromptFits,
  disposeLocalModels,
  localModelPoolStats,
  MIN_OUTPUT_TOKENS,
} from './model-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'massgen-local-'));
afterAll(async () => {
  await disposeLocalModels();
  rmSync(dir, { recursive: true, force: true });
});

/** The one-line error a `local` backend on `modelPath` fails with. */
async function loadFailure(modelPath: string): Promise<ProviderError> {
  const model = new LlamaLanguageModel({
    modelId: 'm',
    handle: acquireLocalModel(tinyModelKey({ modelPath })),
  });
  const backend = createLanguageModelBackend({ type: 'local', modelId: 'm', model, providerName: 'local' });
  const error = await failure(backend.stream(request()));
  if (!(error instanceof ProviderError)) throw error;
  expect(error.retryable).toBe(false);
  expect(error.message).not.toContain('\n');
  return error;
}

describe('assertPromptFits', () => {
  it('leaves room for a minimal reply', () => {
    expect(() => assertPromptFits(1024 - MIN_OUTPUT_TOKENS, 1024)).not.toThrow();
    expect(() => assertPromptFits(1024 - MIN_OUTPUT_TOKENS + 1, 1024)).toThrow(ProviderError);
  });

  it('says in one line how big the prompt is and what to change', () => {
    expect(() => assertPromptFits(2345, 1024)).toThrow(
      'local: the prompt needs 2,345 tokens (plus 32 for the reply) but the context holds 1,024 — raise backend.context_size',
    );
  });
});

describe('model files that do not load', () => {
  it('a missing file', async () => {
    const path = join(dir, 'missing.gguf');
    expect((await loadFailure(path)).message).toBe(`local: model file not found: ${path}`);
  });

  it('a text file named .gguf', async () => {
    const path = join(dir, 'x.gguf');
    writeFileSync(path, 'this is not a model\n');
    expect((await loadFailure(path)).message).toBe(
      `local: ${path} is not a GGUF model file (it does not start with the GGUF signature)`,
    );
  });

  it('a directory', async () => {
    expect((await loadFailure(dir)).message).toBe(`local: ${dir} is a directory, not a GGUF model file`);
  });
});

describeWithTinyModel('the model pool on the tiny model', () => {
  beforeEach(() => disposeLocalModels());

  it('a truncated GGUF fails with one line naming the file', async () => {
    const path = join(dir, 'truncated.gguf');
    const head = Buffer.alloc(1000);
    const fd = openSync(TINY_MODEL_PATH, 'r');
    readSync(fd, head, 0, 1000, 0);
    closeSync(fd);
    writeFileSync(path, head);
    expect((await loadFailure(path)).message).toBe(
      `local: cannot load ${path}: the file is truncated or corrupt (its GGUF header cannot be read)`,
    );
  });

  it('a GGUF cut in the middle of its tensors quotes llama.cpp', async () => {
    const path = join(dir, 'half.gguf');
    const half = Buffer.alloc(600_000);
    const fd = openSync(TINY_MODEL_PATH, 'r');
    readSync(fd, half, 0, half.length, 0);
    closeSync(fd);
    writeFileSync(path, half);
    const { message } = await loadFailure(path);
    expect(message).toContain(`local: cannot load ${path}: the file is truncated or corrupt (`);
    expect(message).toMatch(/not within the file bounds/);
  });

  it('registers without loading anything; the first call loads once and sizes the context for every agent', async () => {
    const handles = [1, 2, 3].map(() => acquireLocalModel(tinyModelKey()));
    expect(localModelPoolStats()).toEqual({ runtimeLoads: 0, modelLoads: 0, contexts: [] });

    const sessions = await Promise.all(handles.map((handle) => handle.session()));
    const stats = localModelPoolStats();
    expect(stats.runtimeLoads).toBe(1);
    expect(stats.modelLoads).toBe(1);
    expect(stats.contexts).toEqual([
      { modelPath: TINY_MODEL_PATH, contextSize: 2048, threads: 1, sequences: 3, sequencesInUse: 3 },
    ]);
    expect(new Set(sessions.map((s) => s.sequence)).size).toBe(3);
    expect(new Set(sessions.map((s) => s.model)).size).toBe(1);
    expect(await handles[0]?.session()).toBe(sessions[0]);
    expect(sessions[0]?.format).toEqual({ kind: 'generic' });
  });

  it('shares the model across context sizes but gives each its own context', async () => {
    const small = acquireLocalModel(tinyModelKey({ contextSize: 512 }));
    const large = acquireLocalModel(tinyModelKey());
    await Promise.all([small.session(), large.session()]);
    const stats = localModelPoolStats();
    expect(stats.modelLoads).toBe(1);
    expect(stats.contexts.map((c) => [c.contextSize, c.sequences]).sort()).toEqual([
      [2048, 1],
      [512, 1],
    ]);
  });

  it('gives a late agent a new context, and a released sequence to the next agent', async () => {
    const first = acquireLocalModel(tinyModelKey());
    await first.session();
    const late = acquireLocalModel(tinyModelKey());
    await late.session();
    expect(localModelPoolStats().contexts.map((c) => c.sequences)).toEqual([1, 1]);

    first.release();
    // The sequence is given back once its disposal (asynchronous) is done.
    await expect
      .poll(() => localModelPoolStats().contexts.map((c) => c.sequencesInUse), POLL)
      .toEqual([0, 1]);
    const next = acquireLocalModel(tinyModelKey());
    await next.session();
    expect(localModelPoolStats().contexts.map((c) => c.sequencesInUse)).toEqual([1, 1]);
  });

  it('keeps handles usable across disposeLocalModels (they load again)', async () => {
    const handle = acquireLocalModel(tinyModelKey());
    const before = await handle.session();
    await disposeLocalModels();
    expect(localModelPoolStats()).toEqual({ runtimeLoads: 0, modelLoads: 0, contexts: [] });
    const after = await handle.session();
    expect(after).not.toBe(before);
    expect(localModelPoolStats().modelLoads).toBe(1);
    expect(await after.completion.generateCompletion('The dog', { maxTokens: 3 })).toEqual(
      expect.any(String),
    );
  });

  it('does not remember a failed load: a file put in place later loads', async () => {
    const path = join(dir, 'later.gguf');
    const handle = acquireLocalModel(tinyModelKey({ modelPath: path }));
    await expect(handle.session()).rejects.toThrow(`local: model file not found: ${path}`);
    copyFileSync(TINY_MODEL_PATH, path);
    await expect(handle.session()).resolves.toMatchObject({ contextSize: 2048 });
  });
});
