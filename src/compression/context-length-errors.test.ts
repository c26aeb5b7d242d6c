/**
 * Each vendor's context-length refusal, as its API really sends it (the fake servers script the real
 * bodies), through massgen's backend on the vendor's real SDK: recognised as such, and in a run
 * answered by compressing the history and trying once more; a second refusal is `context_overflow`.
 */
import { describe, expect, it } from 'vitest';
import { useDialectServer } from '../backends/backend.test-support.js';
import { chatCompletionBackend } from '../backends/chatcompletion/index.js';
import { claudeBackend } from '../backends/claude/index.js';
import { geminiBackend } from '../backends/gemini/index.js';
import { grokBackend } from '../backends/grok/index.js';
import { openAIBackend } from '../backends/openai/index.js';
import { Orchestrator } from '../coordination/orchestrator.js';
import { EventRecorder } from '../testing/event-recorder.js';
import { anthropicMessagesDialect } from '../testing/fake-server/anthropic-messages.js';
import { CONTEXT_LENGTH_ERRORS } from '../testing/fake-server/context-length-errors.js';
import { geminiDialect } from '../testing/fake-server/gemini.js';
import { openAIChatDialect } from '../testing/fake-server/openai-chat.js';
import { openAIResponsesDialect } from '../testing/fake-server/openai-responses.js';
import type { FakeErrorResponse } from '../testing/fake-server/script.js';
import type { FakeServer } from '../testing/fake-server/server.js';
import { xaiChatDialect } from '../testing/fake-server/xai-chat.js';
import type { Backend, BackendFactory } from '../types/backend.js';
import { ProviderError } from '../types/errors.js';
import { pageTool } from './compression.test-support.js';
import { createCompressor } from './compressor.js';
import { SUMMARY_HEADING } from './summary-prompt.js';

const main = useDialectServer([
  openAIResponsesDialect,
  anthropicMessagesDialect,
  geminiDialect,
  openAIChatDialect,
]);
const xai = useDialectServer([xaiChatDialect]);

interface Vendor {
  name: string;
  factory: BackendFactory;
  type: string;
  model: string;
  server: () => FakeServer;
  base: string;
  error: FakeErrorResponse;
}
const VENDORS: Vendor[] = [
  {
    name: 'OpenAI (Responses)',
    factory: openAIBackend,
    type: 'openai',
    model: 'gpt-4.1-mini',
    server: () => main.server,
    base: '/v1',
    error: CONTEXT_LENGTH_ERRORS.openaiResponses,
  },
  {
    name: 'OpenAI (Chat Completions)',
    factory: chatCompletionBackend,
    type: 'chatcompletion',
    model: 'gpt-4o',
    server: () => main.server,
    base: '/v1',
    error: CONTEXT_LENGTH_ERRORS.openai,
  },
  {
    name: 'Anthropic',
    factory: claudeBackend,
    type: 'claude',
    model: 'claude-sonnet-4-5',
    server: () => main.server,
    base: '/v1',
    error: CONTEXT_LENGTH_ERRORS.anthropic,
  },
  {
    name: 'Gemini',
    factory: geminiBackend,
    type: 'gemini',
    model: 'gemini-2.5-flash',
    server: () => main.server,
    base: '/v1beta',
    error: CONTEXT_LENGTH_ERRORS.gemini,
  },
  {
    name: 'xAI (Grok)',
    factory: grokBackend,
    type: 'grok',
    model: 'grok-4.3',
    server: () => xai.server,
    base: '/v1',
    error: CONTEXT_LENGTH_ERRORS.xai,
  },
  {
    name: 'vLLM (OpenAI-compatible)',
    factory: chatCompletionBackend,
    type: 'chatcompletion',
    model: 'qwen3-8b',
    server: () => main.server,
    base: '/v1',
    error: CONTEXT_LENGTH_ERRORS.vllm,
  },
];

const backendOf = (vendor: Vendor): Backend =>
  vendor.factory.create({
    type: vendor.type,
    model: vendor.model,
    baseUrl: `${vendor.server().origin}${vendor.base}`,
    apiKey: 'test-key-0123456789',
    providerOptions: {},
  });

const pages = pageTool(400);

/** One agent (it answers directly) that reads two pages, then meets the vendor's refusal. */
async function runOne(vendor: Vendor, ...after: Parameters<FakeServer['enqueue']>) {
  const server = vendor.server();
  server.enqueue(
    { toolCalls: [{ name: 'fetch_page', arguments: { n: 1 } }] },
    { toolCalls: [{ name: 'fetch_page', arguments: { n: 2 } }] },
    vendor.error,
    ...after,
  );
  const backend = backendOf(vendor);
  const orchestrator = new Orchestrator({
    agents: [
      { id: 'reader', backend, tools: pages, compressor: createCompressor({ backend }), maxRetries: 0 },
    ],
    settings: { agentTurnTimeoutMs: 30_000, orchestratorTimeoutMs: 60_000 },
  });
  const recorder = await EventRecorder.record(orchestrator.run('Summarise the pages.'));
  return { recorder, requests: server.requests.map((r) => JSON.stringify(r.body)) };
}

describe.each(VENDORS)("$name's context-length refusal", (vendor) => {
  it('is recognised through the real SDK: not retryable as is, marked as a context-length error', async () => {
    vendor.server().enqueue(vendor.error);
    let error: unknown;
    try {
      for await (const _ of backendOf(vendor).stream({
        messages: [{ role: 'user', content: 'Hello?' }],
        tools: [],
        signal: new AbortController().signal,
      }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, retryable: false, contextLength: true });
  });

  it('is answered by compressing the older steps and one retry, and the run finishes', async () => {
    const { recorder, requests } = await runOne(
      vendor,
      { text: 'Page 1 is lorem ipsum.' },
      { text: 'Final: lorem ipsum.' },
    );
    expect(recorder.finished).toMatchObject({ status: 'completed', finalAnswer: 'Final: lorem ipsum.' });
    expect(recorder.ofType('agent.context.compressed')).toEqual([
      expect.objectContaining({
        agentId: 'reader',
        reason: 'provider_error',
        summarisedMessages: 2,
        model: vendor.model,
      }),
    ]);
    expect(recorder.ofType('agent.step.retrying')).toHaveLength(1);
    expect(requests).toHaveLength(5);
    // The summariser read page 1; the retry carried the summary instead of it, and page 2 verbatim.
    expect(requests[3]).toContain('PAGE-1-START');
    expect(requests[4]).toContain(SUMMARY_HEADING);
    expect(requests[4]).toContain('Page 1 is lorem ipsum.');
    expect(requests[4]).not.toContain('PAGE-1-START');
    expect(requests[4]).toContain('PAGE-2-START');
  });
});

it('a second refusal after compressing ends the turn with context_overflow, naming the provider’s words', async () => {
  const vendor = VENDORS[1] as Vendor;
  const { recorder } = await runOne(vendor, { text: 'Page 1 is lorem ipsum.' }, vendor.error);
  expect(recorder.finished.status).toBe('failed');
  const failed = recorder.ofType('agent.turn.finished').find((e) => e.outcome === 'failed');
  expect(failed?.error?.code).toBe('context_overflow');
  expect(failed?.error?.message).toMatch(
    /^reader's request \(about [\d,]+ tokens\) is too long for gpt-4o even after compressing its history — .*maximum context length is 128000 tokens/,
  );
  // The turn made no sixth call: a new turn (if any) starts afresh.
  expect(recorder.ofType('agent.context.compressed')).toHaveLength(1);
  const turns = recorder.events.filter((e) => e.type === 'agent.turn.started').length;
  expect(vendor.server().requests.length).toBeLessThanOrEqual(5 + (turns - 1));
});
