import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workflowToolDefinitions } from '../../coordination/workflow-tools.js';
import { ProviderError } from '../../types/errors.js';
import type { ModelStreamPart } from '../../types/backend.js';
import type { ToolDefinition } from '../../types/messages.js';
import { collect, failure, request, textOf } from '../backend.test-support.js';
import { createLlamaLanguageModel, LlamaLanguageModel } from './llama-language-model.js';
import {
  describeWithTinyModel,
  longText,
  TINY_MODEL_PATH,
  tinyBackend,
  tinyModelKey,
} from './local.test-support.js';
import { acquireLocalModel, disposeLocalModels, localModelPoolStats } from './model-pool.js';
import { validateArguments } from './tool-grammar.js';

const story = [
  { role: 'system' as const, content: 'You write short stories for children.' },
  { role: 'user' as const, content: 'Tell me a story about a cat.' },
];

/** An ordinary tool with nested object arguments. */
const writeNote: ToolDefinition = {
  name: 'write_note',
  description: 'Writes a note to a file.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Where to write.' },
      note: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          mood: { type: 'string', enum: ['happy', 'sad'] },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          meta: { type: 'object', properties: { pinned: { type: 'boolean' }, stars: { type: 'integer' } } },
        },
        required: ['title', 'mood'],
      },
    },
    required: ['path', 'note'],
  },
};

const finishOf = (parts: ModelStreamPart[]) => {
  const last = parts[parts.length - 1];
  if (last?.type !== 'finish') throw new Error(`no finish part: ${JSON.stringify(parts)}`);
  return last;
};

describeWithTinyModel('LlamaLanguageModel on the tiny model', () => {
  // One backend (one sequence) for most tests: the model loads once for the file.
  let shared: ReturnType<typeof tinyBackend>;
  beforeAll(() => {
    shared = tinyBackend({ maxTokens: 200 });
  });
  afterAll(() => disposeLocalModels());

  it('streams free text as many text-delta parts, then finish with usage', async () => {
    const parts = await collect(shared.backend.stream(request({ messages: story })));
    const deltas = textOf(parts, 'text-delta');
    const finish = finishOf(parts);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('').trim()).not.toBe('');
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(['stop', 'length']).toContain(finish.finishReason);
    expect(finish.usage.inputTokens).toBeGreaterThan(10);
    expect(finish.usage.outputTokens).toBeGreaterThanOrEqual(deltas.length);
  });

  it('stops at maxOutputTokens with finish reason length', async () => {
    // Greedy: with sampling, an end-of-story token could now and then come before the budget does.
    const { backend } = tinyBackend({ maxTokens: 20, temperature: 0 });
    const parts = await collect(backend.stream(request({ messages: story })));
    const finish = finishOf(parts);
    expect(finish.finishReason).toBe('length');
    expect(finish.usage.outputTokens).toBe(20);
  });

  it('counts prompt tokens and reports the prefix reused from the previous call as cached', async () => {
    const model = shared.model;
    const session = await model.handle.session();
    const expected = session.model.tokenize('### System:\nYou write short stories for children.').length;
    const first = finishOf(await collect(shared.backend.stream(request({ messages: story }))));
    expect(first.usage.inputTokens).toBeGreaterThan(expected);
    const again = finishOf(await collect(shared.backend.stream(request({ messages: story }))));
    expect(again.usage.inputTokens).toBe(first.usage.inputTokens);
    // Everything but the last prompt token (which is evaluated again to sample the reply) is reused.
    expect(again.usage.cachedInputTokens).toBe(again.usage.inputTokens - 1);
  });

  it('with tools, answers with exactly one tool call that parses and validates (30 runs)', async () => {
    const toolSets: ToolDefinition[][] = [
      workflowToolDefinitions([]),
      workflowToolDefinitions(['agent1']),
      workflowToolDefinitions(['agent1', 'agent2']),
      workflowToolDefinitions(['agent1', 'agent2', 'agent3']),
      [writeNote, ...workflowToolDefinitions(['agent1', 'agent2'])],
      [writeNote],
    ];
    const questions = [
      'What is 2+2?',
      'Write a poem about the sea.',
      'Which answer is best?',
      'Save a note.',
      'Hi',
    ];
    const seen = new Set<string>();
    const toolAgent = tinyBackend({ maxTokens: 400 });
    const hotAgent = tinyBackend({ temperature: 1.2, maxTokens: 400 });
    for (let run = 0; run < 30; run++) {
      // Five runs per tool set in a row, so each agent's prompt prefix (the tool list) stays cached.
      const tools = toolSets[Math.floor(run / 5)] as ToolDefinition[];
      // Half the runs sample hot, to push the grammar.
      const { backend } = run % 2 === 0 ? toolAgent : hotAgent;
      const parts = await collect(
        backend.stream(
          request({
            messages: [
              { role: 'system', content: 'You are one of several agents. Use the tools.' },
              { role: 'user', content: questions[run % questions.length] as string },
            ],
            tools,
            toolChoice: 'required',
          }),
        ),
      );
      const where = `run ${run}: ${JSON.stringify(parts)}`;
      expect(textOf(parts, 'text-delta'), where).toEqual([]);
      const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));
      expect(calls, where).toHaveLength(1);
      const call = calls[0];
      const tool = tools.find((t) => t.name === call?.name);
      expect(tool, where).toBeDefined();
      expect(typeof call?.arguments, where).toBe('object');
      expect(validateArguments(tool?.parameters, call?.arguments), where).toBeUndefined();
      expect(finishOf(parts).finishReason).toBe('tool-calls');
      seen.add(call?.name ?? '');
    }
    expect(seen.has('write_note')).toBe(true);
  }, 60_000);

  it('closes the tool-call JSON before a small output budget runs out', async () => {
    const { backend } = tinyBackend({ maxTokens: 90, temperature: 3 });
    for (let run = 0; run < 5; run++) {
      const parts = await collect(
        backend.stream(
          request({ messages: story, tools: workflowToolDefinitions([]), toolChoice: 'required' }),
        ),
      );
      expect(
        parts.filter((p) => p.type === 'tool-call'),
        JSON.stringify(parts),
      ).toHaveLength(1);
      expect(finishOf(parts).usage.outputTokens).toBeLessThanOrEqual(90);
    }
  });

  it('two backends on one model path share one loaded model and one context with 2 sequences, and generate concurrently', async () => {
    await disposeLocalModels();
    const key = { contextSize: 512 };
    const a = tinyBackend({ key, maxTokens: 300 });
    const b = tinyBackend({ key, maxTokens: 300 });
    expect(localModelPoolStats()).toEqual({ runtimeLoads: 0, modelLoads: 0, contexts: [] });

    const timeline: string[] = [];
    const run = async (name: string, backend: typeof a.backend) => {
      let first = true;
      for await (const part of backend.stream(request({ messages: story }))) {
        if (part.type === 'text-delta' && first) {
          first = false;
          timeline.push(`${name} first`);
        }
        if (part.type === 'finish') timeline.push(`${name} done`);
      }
    };
    await Promise.all([run('a', a.backend), run('b', b.backend)]);

    const stats = localModelPoolStats();
    expect(stats.runtimeLoads).toBe(1);
    expect(stats.modelLoads).toBe(1);
    expect(stats.contexts).toEqual([
      { modelPath: TINY_MODEL_PATH, contextSize: 512, threads: 1, sequences: 2, sequencesInUse: 2 },
    ]);
    // Both were generating before either finished.
    expect(timeline.slice(0, 2).sort()).toEqual(['a first', 'b first']);
    expect(await a.model.handle.session()).not.toBe(await b.model.handle.session());
    expect((await a.model.handle.session()).sequence).not.toBe((await b.model.handle.session()).sequence);
  });

  it('aborting mid-generation rejects the stream at the next token, and the agent can call again', async () => {
    const { backend, model } = tinyBackend({ maxTokens: 2000, temperature: 0.8 });
    const controller = new AbortController();
    const reason = new Error('stop now');
    let deltas = 0;
    const error = await (async () => {
      try {
        for await (const part of backend.stream(request({ messages: story, signal: controller.signal }))) {
          if (part.type === 'text-delta' && ++deltas === 1) {
            controller.abort(reason);
          }
        }
      } catch (caught) {
        return caught;
      }
      throw new Error('expected the stream to reject');
    })();
    expect(error).toBe(reason);
    expect(deltas).toBeLessThan(50);

    const after = await model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Once upon a time' }] }],
      maxOutputTokens: 10,
    });
    expect(after.finishReason.unified).toMatch(/stop|length/);
  });

  it('aborts promptly at the model level too: doStream stops generating at the next token', async () => {
    const model = new LlamaLanguageModel({ modelId: 'tiny', handle: acquireLocalModel(tinyModelKey()) });
    const controller = new AbortController();
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Once upon a time' }] }],
      maxOutputTokens: 2000,
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    const seen: LanguageModelV3StreamPart['type'][] = [];
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      seen.push(next.value.type);
      if (next.value.type === 'text-delta') break;
    }
    controller.abort(new Error('bye'));
    await expect(reader.read()).rejects.toThrow('bye');
    expect(seen.slice(0, 3)).toEqual(['stream-start', 'response-metadata', 'text-start']);
    const session = await model.handle.session();
    // The sequence is free again at once: a new generation does not wait for the aborted one.
    const next = await session.completion.generateCompletion('The cat', { maxTokens: 5 });
    expect(typeof next).toBe('string');
  });

  it('stops generating when the caller cancels the stream', async () => {
    const model = new LlamaLanguageModel({ modelId: 'tiny', handle: acquireLocalModel(tinyModelKey()) });
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Once upon a time' }] }],
      maxOutputTokens: 2000,
    });
    const reader = stream.getReader();
    while ((await reader.read()).value?.type !== 'text-delta');
    await reader.cancel();
    const session = await model.handle.session();
    // The sequence's lock is released at the next token, not after 2,000 of them: counted in tokens
    // the sequence generated, not in time, so a loaded machine cannot fail it.
    await session.completion.generateCompletion('The cat', { maxTokens: 3 });
    expect(session.sequence.tokenMeter.usedOutputTokens).toBeLessThan(100);
  });

  it('fails with one clear line when the prompt does not fit the context', async () => {
    const { backend } = tinyBackend({ key: { contextSize: 256 } });
    const error = await failure(
      backend.stream(request({ messages: [{ role: 'user', content: longText(2000) }] })),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as Error).message).toMatch(
      /^local: the prompt needs [\d,]{5} tokens \(plus 32 for the reply\) but the context holds 256 — raise backend\.context_size$/,
    );
  });

  it('doGenerate returns the text, finish reason and usage', async () => {
    const result = await shared.model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Once upon a time' }] }],
      maxOutputTokens: 16,
    } satisfies LanguageModelV3CallOptions);
    expect(result.content).toHaveLength(1);
    expect(result.content[0]?.type).toBe('text');
    expect(result.finishReason).toEqual({ unified: 'length', raw: 'maxTokens' });
    expect(result.usage.outputTokens.total).toBe(16);
  });

  it('counts every token spent when the budget runs out, even ones held back as a possible stop trigger', async () => {
    // With the chat format's stop triggers, a generation cut by the budget while its last tokens could
    // start a trigger ("\n###") ends with those tokens dropped unreported; on this model some of these
    // seeds do that (seed 35 with node-llama-cpp 3.x).
    const short: number[] = [];
    for (let seed = 1; seed <= 60; seed++) {
      const result = await shared.model.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'Once upon a time' }] }],
        maxOutputTokens: 16,
        seed,
      });
      if (result.finishReason.unified === 'length' && result.usage.outputTokens.total !== 16)
        short.push(seed);
    }
    expect(short).toEqual([]);
  });

  it('doGenerate with tools returns one tool call whose input is a JSON string', async () => {
    const result = await shared.model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Vote.' }] }],
      tools: [
        {
          type: 'function',
          name: 'vote',
          inputSchema: {
            type: 'object',
            properties: { agent_id: { enum: ['a1', 'a2'] } },
            required: ['agent_id'],
          },
        },
      ],
      toolChoice: { type: 'required' },
    });
    expect(result.content).toHaveLength(1);
    const call = result.content[0];
    if (call?.type !== 'tool-call') throw new Error(JSON.stringify(result.content));
    expect(call.toolName).toBe('vote');
    expect(['a1', 'a2']).toContain((JSON.parse(call.input) as { agent_id: string }).agent_id);
    expect(result.finishReason.unified).toBe('tool-calls');
  });

  it('answers in free text when toolChoice is none or auto, and in JSON for a json response format', async () => {
    const none = await shared.model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      tools: [{ type: 'function', name: 'x', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'none' },
      maxOutputTokens: 8,
    });
    expect(none.content.map((c) => c.type)).toEqual(['text']);

    // `auto` (the final presentation) answers in text too: a small model cannot pick text vs tool.
    const auto = await shared.model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      tools: [{ type: 'function', name: 'x', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'auto' },
      maxOutputTokens: 8,
    });
    expect(auto.content.map((c) => c.type)).toEqual(['text']);

    const json = await shared.model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'A name.' }] }],
      responseFormat: {
        type: 'json',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      maxOutputTokens: 200,
    });
    const text = json.content[0]?.type === 'text' ? json.content[0].text : '';
    expect(typeof (JSON.parse(text) as { name: unknown }).name).toBe('string');
  });

  it('createLlamaLanguageModel registers in the pool with the defaults filled in', () => {
    const model = createLlamaLanguageModel({
      modelId: 'tiny',
      modelPath: TINY_MODEL_PATH,
      local: { threads: 1, gpu: false },
    });
    expect(model.specificationVersion).toBe('v3');
    expect(model.provider).toBe('local');
    expect(model.modelId).toBe('tiny');
    expect(model.handle.key).toEqual({ modelPath: TINY_MODEL_PATH, gpu: false, threads: 1 });
    const auto = createLlamaLanguageModel({ modelId: 'tiny', modelPath: TINY_MODEL_PATH });
    expect(auto.handle.key.gpu).toBe('auto');
    expect(auto.handle.key.threads).toBeGreaterThanOrEqual(1);
    model.handle.release();
    auto.handle.release();
  });
});
