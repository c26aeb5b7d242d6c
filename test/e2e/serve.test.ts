/**
 * `massgen serve` with the official `openai` client over real HTTP on loopback, agents on the fake
 * OpenAI-compatible server: streamed and plain completions, history, named configs, keys, the run
 * limit (429), a client that goes away (its run stops), and bodies no client should send.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIApp } from '../../src/server/openai/openai-app.js';
import { startServeServer, type ServeServer } from '../../src/server/openai/serve-server.js';
import { ConfigError } from '../../src/types/errors.js';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  runCli,
  startCli,
  waitFor,
  writeConfig,
  useFakeServer,
  freePort,
} from './cli-harness.js';

const fake = useFakeServer();
const servers: ServeServer[] = [];
interface Health {
  runs: { running: number; waiting: number };
}
interface ErrorBody {
  error: { message: string; type: string; code: string };
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Every model call reports 100 prompt and 10 completion tokens, so the summed usage is exact. */
const counted = (body: FakeChatRequestBody): FakeResponse => ({
  ...convergingHandler(body),
  usage: { promptTokens: 100, completionTokens: 10 },
});

function team(ids: readonly string[]) {
  return {
    agents: ids.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    timeout_settings: { agent_turn_timeout_seconds: 10, orchestrator_timeout_seconds: 20 },
  };
}

async function serve(options: { apiKey?: string; maxConcurrent?: number; maxQueue?: number } = {}) {
  const cwd = makeWorkdir();
  writeConfig(cwd, team(['alpha', 'beta']), 'team.yaml');
  const server = await startServeServer({ cwd, env: {}, config: 'team.yaml', port: 0, ...options });
  servers.push(server);
  const client = new OpenAI({ baseURL: server.url, apiKey: options.apiKey ?? 'unused', maxRetries: 0 });
  return { cwd, server, client };
}

describe('massgen serve with the openai client', () => {
  it('answers a plain completion: the final answer as content, the trace as reasoning, usage summed', async () => {
    fake.server.setHandler(counted);
    const { client } = await serve();

    const completion = await client.chat.completions.create({
      model: 'massgen',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
    });

    const choice = completion.choices[0];
    expect(choice?.message.content).toBe(finalAnswerOf('alpha'));
    expect(choice?.finish_reason).toBe('stop');
    const trace = (choice?.message as { reasoning_content?: string }).reasoning_content ?? '';
    expect(trace).toContain('[alpha] ✔ new answer agent1.1');
    expect(trace).toContain('[beta] ✔ vote → agent1.1 (alpha)');
    expect(trace).toContain('Winner: alpha');
    const calls = fake.server.requests.length;
    expect(completion.usage).toMatchObject({
      prompt_tokens: 100 * calls,
      completion_tokens: 10 * calls,
      total_tokens: 110 * calls,
    });
    expect(completion.model).toBe('massgen');
    expect(completion.id).toMatch(/^chatcmpl-/);
  });

  it('streams the trace as reasoning_content deltas, then the answer as content, then usage and [DONE]', async () => {
    fake.server.setHandler(counted);
    const { client } = await serve();

    const stream = await client.chat.completions.create({
      model: 'massgen',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const kinds: string[] = [];
    let content = '';
    let reasoning = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as { content?: string | null; reasoning_content?: string };
      if (delta.reasoning_content) {
        reasoning += delta.reasoning_content;
        kinds.push('reasoning');
      }
      if (delta.content) {
        content += delta.content;
        kinds.push('content');
      }
      finish = choice.finish_reason ?? finish;
    }

    expect(content).toBe(finalAnswerOf('alpha'));
    expect(reasoning).toContain('[beta] ✔ vote → agent1.1 (alpha)');
    // Several trace deltas arrive as the run goes, and every one of them before the answer.
    expect(kinds.filter((k) => k === 'reasoning').length).toBeGreaterThan(3);
    expect(kinds.indexOf('content')).toBe(kinds.length - 1);
    expect(finish).toBe('stop');
    expect(usage?.total_tokens).toBe(110 * fake.server.requests.length);
  });

  it('turns earlier messages into history and system messages into instructions', async () => {
    fake.server.setHandler(counted);
    const { client } = await serve();

    await client.chat.completions.create({
      model: 'massgen',
      messages: [
        { role: 'system', content: 'Answer in one line.' },
        { role: 'user', content: 'What is the capital of Spain?' },
        { role: 'assistant', content: 'Madrid.' },
        { role: 'user', content: 'What is 6 times 7?' },
      ],
    });

    const first = JSON.stringify(fake.server.requests[0]?.body?.messages);
    expect(first).toContain('What is the capital of Spain?');
    expect(first).toContain('Madrid.');
    expect(first).toContain('What is 6 times 7?');
    expect(first).toContain('Answer in one line.');
  });

  it('lists massgen and the named configs, runs one by name, and answers 404 for an unknown model', async () => {
    fake.server.setHandler(counted);
    const { client, cwd } = await serve();
    writeConfig(cwd, team(['gamma', 'delta']), 'other.yaml');

    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids[0]).toBe('massgen');
    expect(ids).toContain('massgen/other');
    expect(ids).toContain('massgen/basic/three_agents');

    const completion = await client.chat.completions.create({
      model: 'massgen/other',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
    });
    expect(completion.choices[0]?.message.content).toBe(finalAnswerOf('gamma'));

    const error = await client.chat.completions
      .create({ model: 'massgen/nope', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('with an API key, refuses a wrong one (401) and serves the right one', async () => {
    fake.server.setHandler(counted);
    const { server } = await serve({ apiKey: 'sk-right' });
    const wrong = new OpenAI({ baseURL: server.url, apiKey: 'sk-wrong', maxRetries: 0 });
    const right = new OpenAI({ baseURL: server.url, apiKey: 'sk-right', maxRetries: 0 });

    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const health = await fetch(server.url.replace(/\/v1$/, '/health'));
    expect(health.status).toBe(401);
    expect((await right.models.list()).data[0]?.id).toBe('massgen');
  });

  it('refuses to listen beyond loopback without a key, and refuses an invalid config at start', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha']), 'team.yaml');
    await expect(
      startServeServer({ cwd, env: {}, config: 'team.yaml', host: '0.0.0.0', port: 0 }),
    ).rejects.toThrow(/needs an API key/);
    writeConfig(cwd, { agents: [{ id: 'x', backend: { type: 'chatcompletion', modle: 'm' } }] }, 'bad.yaml');
    await expect(startServeServer({ cwd, env: {}, config: 'bad.yaml', port: 0 })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it('queues up to --max-queue requests beyond --max-concurrent and answers 429 with Retry-After after that', async () => {
    fake.server.setHandler(() => ({ hang: true }));
    const { server } = await serve({ maxConcurrent: 1, maxQueue: 1 });
    const body = JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'hi' }] });
    const post = (signal: AbortSignal) =>
      fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
        signal,
      }).catch(() => null);
    const held = new AbortController();
    void post(held.signal); // runs
    await waitFor(() => fake.server.requests.length > 0, 10_000);
    void post(held.signal); // waits
    const health = server.url.replace(/\/v1$/, '/health');
    await waitFor(async () => ((await (await fetch(health)).json()) as Health).runs.waiting === 1, 10_000);

    const refused = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as ErrorBody).error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
    });

    held.abort();
    await waitFor(async () => {
      const runs = ((await (await fetch(health)).json()) as Health).runs;
      return runs.running === 0 && runs.waiting === 0;
    }, 10_000);
  });

  it('stops the run as soon as a streaming client disconnects: no further model requests', async () => {
    // Agents that keep improving, one slow call after another: the run would go on for seconds.
    fake.server.setHandler((body, i) => ({
      text: `Working on draft ${i}.`,
      chunkSize: 4,
      delayMs: 40,
      toolCalls: [
        { name: 'new_answer', arguments: { content: `Draft ${i}: ${'a longer answer '.repeat(i)}` } },
      ],
    }));
    const { client, server } = await serve();
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'massgen', messages: [{ role: 'user', content: 'What is 6 times 7?' }], stream: true },
      { signal: controller.signal },
    );
    const reading = (async () => {
      for await (const _chunk of stream) {
        // Read until the abort.
      }
    })().catch(() => undefined);
    await waitFor(() => fake.server.requests.length >= 2, 10_000);
    controller.abort();
    await reading;

    const health = server.url.replace(/\/v1$/, '/health');
    await waitFor(async () => ((await (await fetch(health)).json()) as Health).runs.running === 0, 10_000);
    const seen = fake.server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(fake.server.requests.length).toBe(seen);
    expect(seen).toBeLessThan(5);
  });

  it('answers a run that fails with 500 and the reason', async () => {
    fake.server.setHandler(() => ({ status: 400, body: { error: { message: 'model says no', type: 'x' } } }));
    const { client } = await serve();
    const error = await client.chat.completions
      .create({ model: 'massgen', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toMatch(/the run failed: .*model says no/);
  });
});

describe('bodies no client should send (in-process handler)', () => {
  const cwd = makeWorkdir();
  writeConfig(cwd, { agents: [agentEntry('alpha', 'http://127.0.0.1:9/v1')] }, 'team.yaml');
  const app = createOpenAIApp({ cwd, env: {}, config: 'team.yaml' });
  const post = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    app.fetch(new Request('http://127.0.0.1/v1/chat/completions', { method: 'POST', body, headers }));

  it.each([
    ['malformed JSON', '{"model": "massgen", ', /not valid JSON/],
    ['missing messages', '{"model": "massgen"}', /missing required parameter: "messages"/],
    ['messages not a list', '{"model": "massgen", "messages": "hi"}', /"messages"/],
    [
      'no user message',
      '{"model": "massgen", "messages": [{"role": "system", "content": "x"}]}',
      /user message/,
    ],
    [
      'ends with the assistant',
      '{"model":"massgen","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}',
      /does not end with a user message/,
    ],
    [
      'an image part',
      '{"model":"massgen","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}',
      /only text parts are supported/,
    ],
    ['a JSON array', '[]', /request body/],
    ['JSON null', 'null', /request body/],
    [
      'an unknown role',
      '{"model":"massgen","messages":[{"role":"robot","content":"x"}]}',
      /messages\.0\.role/,
    ],
    ['n = 2', '{"model":"massgen","n":2,"messages":[{"role":"user","content":"x"}]}', /"n"/],
  ])('%s → 400 in OpenAI’s error format', async (_name, body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const json = (await response.json()) as ErrorBody;
    expect(json.error).toMatchObject({ type: 'invalid_request_error' });
    expect(json.error.message).toMatch(message);
  });

  it('refuses a body that is not sent as JSON, a body over 8 MiB, a cross-origin page, an unknown route', async () => {
    expect((await post('{}', { 'Content-Type': 'text/plain' })).status).toBe(400);
    expect((await post(`{"x":"${'a'.repeat(9 * 1024 * 1024)}"}`)).status).toBe(413);
    const crossSite = await app.fetch(
      new Request('http://127.0.0.1:4000/v1/models', {
        headers: { Origin: 'https://evil.example', Host: '127.0.0.1:4000' },
      }),
    );
    expect(crossSite.status).toBe(403);
    const unknown = await app.fetch(new Request('http://127.0.0.1/v1/embeddings', { method: 'POST' }));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorBody).error.code).toBe('not_found');
  });

  it('never answers 5xx to random garbage', async () => {
    const garbage = [
      '',
      '{',
      '"',
      '1e999',
      '{"messages":[null]}',
      '{"model":1,"messages":[]}',
      '\u0000',
      '{"__proto__":{"x":1}}',
    ];
    for (let i = 0; i < 50; i++)
      garbage.push(
        JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: i % 2 ? {} : [i] }] }),
      );
    for (const body of garbage) expect((await post(body)).status, body).toBeLessThan(500);
  });
});

describe('the massgen serve command', () => {
  it('serves until Ctrl-C; streams to the openai client; needs --config; refuses 0.0.0.0 without a key', async () => {
    fake.server.setHandler(counted);
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha', 'beta']), 'team.yaml');
    const port = await freePort();
    const cli = startCli(['serve', '--config', 'team.yaml', '--port', String(port)], {
      cwd,
      timeoutMs: 30_000,
    });
    await waitFor(() => cli.stdout.includes('massgen serve: http://127.0.0.1:'), 10_000);
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', maxRetries: 0 });
    let content = '';
    const stream = await client.chat.completions.create({
      model: 'massgen',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      stream: true,
    });
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toBe(finalAnswerOf('alpha'));
    await waitFor(() => cli.stderr.includes('completed in'), 10_000);
    cli.child.kill('SIGINT');
    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/run \S+ \(massgen\): completed in [\d.]+s winner alpha/);

    const noConfig = await runCli(['serve'], { cwd });
    expect(noConfig.code).toBe(1);
    expect(noConfig.stderr).toMatch(/massgen serve needs --config FILE/);
    const open = await runCli(['serve', '--config', 'team.yaml', '--host', '0.0.0.0'], { cwd });
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(/needs an API key[\s\S]*hint: pass --api-key KEY/);
    writeConfig(cwd, { agents: [{ id: 'x', backend: { type: 'chatcompletion', modle: 'm' } }] }, 'bad.yaml');
    const badConfig = await runCli(['serve', '--config', 'bad.yaml'], { cwd });
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr).toMatch(
      /bad\.yaml: unknown key "modle" at agents\[0\]\.backend\nhint: did you mean "model"\?/,
    );
    const badFlag = await runCli(['serve', '--config', 'team.yaml', '--max-concurent', '2'], { cwd });
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toMatch(/unknown option '--max-concurent'.*--max-concurrent/);
  });
});
