/**
 * `massgen/ai-sdk`: the team as an AI SDK model, driven by the real `generateText` and `streamText`,
 * with agents on the fake OpenAI-compatible server.
 */
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMassGen, MassGenRunError } from '../../src/ai-provider/index.js';
import { ConfigError } from '../../src/types/errors.js';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';

const fake = useFakeServer();

const counted = (body: FakeChatRequestBody): FakeResponse => ({
  ...convergingHandler(body),
  usage: { promptTokens: 100, completionTokens: 10 },
});

function provider() {
  const cwd = makeWorkdir();
  const config = {
    agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
  };
  return { cwd, mg: createMassGen({ config, cwd, env: {} }) };
}

describe('massgen/ai-sdk', () => {
  it('generateText: the final answer as text, the trace as reasoning, usage summed, the run in providerMetadata', async () => {
    fake.server.setHandler(counted);
    const { mg } = provider();

    const result = await generateText({ model: mg('massgen'), prompt: 'What is 6 times 7?' });

    expect(result.text).toBe(finalAnswerOf('alpha'));
    expect(result.reasoningText).toContain('[beta] ✔ vote → agent1.1 (alpha)');
    expect(result.finishReason).toBe('stop');
    const calls = fake.server.requests.length;
    expect(result.usage.inputTokens).toBe(100 * calls);
    expect(result.usage.outputTokens).toBe(10 * calls);
    const meta = result.providerMetadata?.massgen as { winnerId: string; status: string; logDir: string };
    expect(meta).toMatchObject({ winnerId: 'alpha', status: 'completed' });
    expect(meta.logDir).toContain('massgen_logs');
  });

  it('streamText: reasoning parts while the team works, then the answer; messages become history', async () => {
    fake.server.setHandler(counted);
    const { mg } = provider();

    const result = streamText({
      model: mg(),
      messages: [
        { role: 'user', content: 'What is the capital of Spain?' },
        { role: 'assistant', content: 'Madrid.' },
        { role: 'user', content: 'What is 6 times 7?' },
      ],
    });
    const order: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'reasoning-delta' || part.type === 'text-delta') order.push(part.type);
    }

    expect(await result.text).toBe(finalAnswerOf('alpha'));
    expect(order.filter((t) => t === 'reasoning-delta').length).toBeGreaterThan(3);
    expect(order.indexOf('text-delta')).toBeGreaterThan(order.lastIndexOf('reasoning-delta'));
    expect((await result.usage).inputTokens).toBe(100 * fake.server.requests.length);
    expect(JSON.stringify(fake.server.requests[0]?.body?.messages)).toContain('Madrid.');
  });

  it('a run that fails rejects generateText with the reason; a bad config rejects before any model call', async () => {
    fake.server.setHandler(() => ({ status: 400, body: { error: { message: 'model says no', type: 'x' } } }));
    const { mg } = provider();
    const error = await generateText({ model: mg(), prompt: 'hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MassGenRunError);
    expect((error as Error).message).toMatch(/model says no/);

    fake.server.reset();
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: [{ id: 'x', backend: { type: 'chatcompletion', modle: 'm' } }] }, 'bad.yaml');
    const bad = createMassGen({ config: 'bad.yaml', cwd, env: {} });
    await expect(generateText({ model: bad(), prompt: 'hi', maxRetries: 0 })).rejects.toBeInstanceOf(
      ConfigError,
    );
    expect(fake.server.requests).toHaveLength(0);
    expect(() => bad('gpt-4o')).toThrow(/No such languageModel: gpt-4o/);
  });

  it('an abort signal stops the run: no further model requests', async () => {
    const PROBE = 'PROBE: what is 6 x 7?';
    const isProbe = (body: unknown) => JSON.stringify(body).includes(PROBE);
    fake.server.setHandler((body, i) =>
      isProbe(body)
        ? convergingHandler(body)
        : {
            text: `Working on draft ${i}.`,
            chunkSize: 4,
            delayMs: 40,
            toolCalls: [{ name: 'new_answer', arguments: { content: `Draft ${i}: ${'more '.repeat(i)}` } }],
          },
    );
    const { mg } = provider();
    const controller = new AbortController();
    const running = generateText({
      model: mg(),
      prompt: 'hi',
      abortSignal: controller.signal,
      maxRetries: 0,
    }).catch((e: unknown) => e);
    await waitUntil(() => fake.server.requests.length >= 2, 'two model requests of the run');
    controller.abort();
    await running;
    const seen = fake.server.requests.length;
    // Whatever the stopped run left behind gets as long as a whole second run takes to call the model:
    // a window that grows with the machine's load, as no fixed pause does.
    const probe = await generateText({ model: mg(), prompt: PROBE, maxRetries: 0 });
    expect(probe.text).toBe(finalAnswerOf('alpha'));
    // A request recorded late but sent before the abort was cut by the client (aborted); a new one not.
    const late = fake.server.requests.slice(seen).filter((r) => !isProbe(r.body) && !r.aborted);
    expect(late.length, 'requests of the stopped run after it ended').toBe(0);
  });
});
