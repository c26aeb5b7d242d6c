/**
 * `massgen serve` with the official `openai` client over real HTTP on loopback, agents on the fake
 * OpenAI-compatible server: streamed and plain completions, history, named configs, keys, the run
 * limit (429, decided before the body is read), a client that goes away (its run stops), bodies no
 * client should send, requests no web page may make, and input that must not take it down.
 */
import fs from 'node:fs';
import http from 'node:http';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIApp } from '../../src/server/openai/openai-app.js';
import { startServeServer, type ServeServer } from '../../src/server/openai/serve-server.js';
import { HostAllowList } from '../../src/server/web/guard.js';
import { rawBytes, rawRequest } from '../../src/server/web/raw-http.test-support.js';
import { ConfigError } from '../../src/types/errors.js';
import { listen, type Listening } from '../../src/util/listen.js';
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
  logDirs,
  readStatus,
} from './cli-harness.js';
import { closedLog, logEnd } from './serve-logs.test-support.js';

const fake = useFakeServer();
/** Every wait of these tests: generous, since the machine may be busy; each says what it waits for. */
const WAIT_MS = 60_000;
const servers: (ServeServer | Listening)[] = [];
interface Health {
  status: string;
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

async function serve(
  options: { apiKey?: string; maxConcurrent?: number; maxQueue?: number; keepAliveMs?: number } = {},
) {
  const cwd = makeWorkdir();
  writeConfig(cwd, team(['alpha', 'beta']), 'team.yaml');
  const server = await startServeServer({ cwd, env: {}, config: 'team.yaml', port: 0, ...options });
  servers.push(server);
  const key = server.apiKey as string;
  const client = new OpenAI({ baseURL: server.url, apiKey: key, maxRetries: 0 });
  const health = async (): Promise<Health> =>
    (await (
      await fetch(server.url.replace(/\/v1$/, '/health'), { headers: { authorization: `Bearer ${key}` } })
    ).json()) as Health;
  const healthText = async () => JSON.stringify(await health());
  return { cwd, server, client, key, health, healthText };
}

describe('massgen serve with the openai client', { timeout: 300_000 }, () => {
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

  it('reports a run over only once its log folder is complete: read the moment the answer ends, it is', async () => {
    fake.server.setHandler(counted);
    const { client, cwd, health } = await serve();
    const messages = [{ role: 'user' as const, content: 'What is 6 times 7?' }];

    const stream = await client.chat.completions.create({ model: 'massgen', messages, stream: true });
    for await (const _chunk of stream) {
      // Read to [DONE].
    }
    const [streamed] = logDirs(cwd);
    expect(logEnd(streamed as string)).toEqual(closedLog('completed'));
    expect((await health()).runs).toEqual({ running: 0, waiting: 0 });

    const completion = await client.chat.completions.create({ model: 'massgen', messages });
    const plain = logDirs(cwd).find((dir) => dir !== streamed) as string;
    expect(logEnd(plain)).toEqual(closedLog('completed'));
    const status = readStatus(plain);
    expect(fs.readFileSync(status.final.answer_file as string, 'utf8')).toBe(
      completion.choices[0]?.message.content,
    );
    expect((await health()).runs).toEqual({ running: 0, waiting: 0 });
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

    // The list is cached and refreshed in the background: a config added now shows up on a later call.
    let ids: string[] = [];
    await waitFor(
      async () => {
        ids = (await client.models.list()).data.map((m) => m.id);
        return ids.includes('massgen/other');
      },
      WAIT_MS,
      'GET /v1/models to list massgen/other',
      () => `the models listed: ${ids.join(', ')}`,
    );
    expect(ids[0]).toBe('massgen');
    expect(ids).toContain('massgen/basic/three_agents');
    expect((await client.models.retrieve('massgen/basic/three_agents')).id).toBe(
      'massgen/basic/three_agents',
    );

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

  it('with an API key, refuses a wrong one (401) and serves the right one; /health says only "ok" without it', async () => {
    fake.server.setHandler(counted);
    const { server } = await serve({ apiKey: 'sk-right' });
    expect(server.apiKey).toBe('sk-right');
    const wrong = new OpenAI({ baseURL: server.url, apiKey: 'sk-wrong', maxRetries: 0 });
    const right = new OpenAI({ baseURL: server.url, apiKey: 'sk-right', maxRetries: 0 });

    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    expect((await fetch(`${server.url}/models`)).status).toBe(401);
    const health = await fetch(server.url.replace(/\/v1$/, '/health'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const detailed = await fetch(server.url.replace(/\/v1$/, '/health'), {
      headers: { authorization: 'Bearer sk-right' },
    });
    expect(await detailed.json()).toMatchObject({ status: 'ok', runs: { running: 0, waiting: 0 } });
    expect((await right.models.list()).data[0]?.id).toBe('massgen');
    // The scheme is case-insensitive (RFC 7235).
    for (const scheme of ['bearer', 'BEARER', 'Bearer'])
      expect(
        (await fetch(`${server.url}/models`, { headers: { authorization: `${scheme} sk-right` } })).status,
      ).toBe(200);
  });

  it('generates a key when none is given; --no-auth only on loopback; refuses an invalid config at start', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha']), 'team.yaml');
    const generated = await startServeServer({ cwd, env: {}, config: 'team.yaml', port: 0 });
    servers.push(generated);
    expect(generated.apiKey).toMatch(/^[\w-]{20,}$/);
    expect((await fetch(`${generated.url}/models`)).status).toBe(401);
    const open = await startServeServer({ cwd, env: {}, config: 'team.yaml', port: 0, auth: false });
    servers.push(open);
    expect(open.apiKey).toBeNull();
    expect((await fetch(`${open.url}/models`)).status).toBe(200);
    await expect(
      startServeServer({ cwd, env: {}, config: 'team.yaml', host: '0.0.0.0', port: 0, auth: false }),
    ).rejects.toThrow(/--no-auth is refused on 0\.0\.0\.0/);
    writeConfig(cwd, { agents: [{ id: 'x', backend: { type: 'chatcompletion', modle: 'm' } }] }, 'bad.yaml');
    await expect(startServeServer({ cwd, env: {}, config: 'bad.yaml', port: 0 })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it('queues up to --max-queue requests beyond --max-concurrent and answers 429 with Retry-After after that', async () => {
    fake.server.setHandler(() => ({ hang: true }));
    const { server, key, health, healthText } = await serve({ maxConcurrent: 1, maxQueue: 1 });
    const body = JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'hi' }] });
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
    const post = (signal: AbortSignal) =>
      fetch(`${server.url}/chat/completions`, { method: 'POST', headers, body, signal }).catch(() => null);
    const held = new AbortController();
    void post(held.signal); // runs
    await waitFor(
      () => fake.server.requests.length > 0,
      WAIT_MS,
      'the first run to call its model',
      healthText,
    );
    void post(held.signal); // waits
    await waitFor(
      async () => (await health()).runs.waiting === 1,
      WAIT_MS,
      'the second request to wait for the run slot',
      healthText,
    );

    // Admission comes first: the refusal arrives while the request's body is still being sent.
    const early = await new Promise<{ status: number; bodyStillOpen: boolean }>((resolve, reject) => {
      const request = http.request(
        `${server.url}/chat/completions`,
        { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length + 10) } },
        (response) => {
          resolve({ status: response.statusCode ?? 0, bodyStillOpen: !request.writableEnded });
          response.resume();
          request.destroy();
        },
      );
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      request.write(body.slice(0, 10));
    });
    expect(early).toEqual({ status: 429, bodyStillOpen: true });

    const refused = await fetch(`${server.url}/chat/completions`, { method: 'POST', headers, body });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as ErrorBody).error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
    });

    held.abort();
    await waitFor(
      async () => {
        const { runs } = await health();
        return runs.running === 0 && runs.waiting === 0;
      },
      WAIT_MS,
      'both requests to be over once their client left',
      healthText,
    );
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
    const { client, health, healthText, cwd } = await serve();
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
    await waitFor(
      () => fake.server.requests.length >= 2,
      WAIT_MS,
      'the run to make two model calls',
      () => `${fake.server.requests.length} model calls`,
    );
    controller.abort();
    await reading;

    // Reported over once it is over, logs closed: it can call no model any more.
    await waitFor(async () => (await health()).runs.running === 0, WAIT_MS, 'the run to stop', healthText);
    const [logDir] = logDirs(cwd);
    expect(logEnd(logDir as string)).toEqual(closedLog('cancelled'));
    expect(fake.server.requests.length).toBeLessThan(5);
  });

  it('a client that vanishes between keep-alives leaves the server up (keep-alive writes never throw)', async () => {
    // A model that never answers: the stream carries nothing but keep-alive comments, one a millisecond.
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const { server, health, healthText, key } = await serve({ keepAliveMs: 1 });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'Q?' }], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while ((text.match(/: keep-alive/g) ?? []).length < 3) {
      const next = await reader.read();
      if (next.done) break;
      text += new TextDecoder().decode(next.value);
    }
    expect((text.match(/: keep-alive/g) ?? []).length).toBeGreaterThanOrEqual(3);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await waitFor(
      async () => (await health()).runs.running === 0,
      WAIT_MS,
      'the run to stop once its client left',
      healthText,
    );
    // Still serving after the run was torn down mid-keep-alive.
    expect((await health()).status).toBe('ok');
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

describe('bodies no client should send (in-process handler)', { timeout: 300_000 }, () => {
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
      /the image_url is not a base64 data: URL/,
    ],
    [
      'an unknown part',
      '{"model":"massgen","messages":[{"role":"user","content":[{"type":"video_url","video_url":"x"}]}]}',
      /the part type "video_url" is not supported/,
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

  it('refuses a body that is not sent as JSON, a body over the limit, a cross-origin page, an unknown route', async () => {
    expect((await post('{}', { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post('{}', { 'Content-Type': 'text/plain; x=application/json' })).status).toBe(415);
    // The limit leaves room for 50 MB of inline media (base64) and the conversation: 75 MiB.
    expect((await post(`{"x":"${'a'.repeat(75 * 1024 * 1024)}"}`)).status).toBe(413);
    const crossSite = await app.fetch(
      new Request('http://127.0.0.1:4000/v1/models', {
        headers: { Origin: 'https://evil.example', Host: '127.0.0.1:4000' },
      }),
    );
    expect(crossSite.status).toBe(403);
    const unknown = await app.fetch(
      new Request('http://127.0.0.1/v1/embeddings', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
    );
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

describe('the massgen serve command', { timeout: 300_000 }, () => {
  it('serves until Ctrl-C with the key it prints; streams to the openai client; needs --config; --no-auth only on loopback', async () => {
    fake.server.setHandler(counted);
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha', 'beta']), 'team.yaml');
    const port = await freePort();
    const cli = startCli(['serve', '--config', 'team.yaml', '--port', String(port)], {
      cwd,
      timeoutMs: 180_000,
    });
    const output = () => `stdout:\n${cli.stdout}\nstderr:\n${cli.stderr}`;
    await waitFor(
      () => /API key: \S+/.test(cli.stdout),
      WAIT_MS,
      'massgen serve to print its address and key',
      output,
    );
    expect(cli.stdout).toContain(`massgen serve: http://127.0.0.1:${port}/v1`);
    const key = /API key: (\S+) \(generated; send it as "Authorization: Bearer KEY"/.exec(
      cli.stdout,
    )?.[1] as string;
    const stranger = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', maxRetries: 0 });
    await expect(stranger.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: key, maxRetries: 0 });
    let content = '';
    const stream = await client.chat.completions.create({
      model: 'massgen',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      stream: true,
    });
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toBe(finalAnswerOf('alpha'));
    await waitFor(
      () => cli.stderr.includes('completed in'),
      WAIT_MS,
      'the access log line of the run',
      output,
    );
    cli.child.kill('SIGINT');
    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/run \S+ \(massgen\): completed in [\d.]+s winner alpha/);

    // Each of these stops at once with an error; the bound only guards against a hang.
    const quick = { cwd, timeoutMs: 120_000 };
    const noConfig = await runCli(['serve'], quick);
    expect(noConfig.code).toBe(1);
    expect(noConfig.stderr).toMatch(/massgen serve needs --config FILE/);
    const open = await runCli(['serve', '--config', 'team.yaml', '--host', '0.0.0.0', '--no-auth'], quick);
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(/--no-auth is refused on 0\.0\.0\.0.*\nhint: drop --no-auth/);
    const badHost = await runCli(['serve', '--config', 'team.yaml', '--allowed-host', 'a/b'], quick);
    expect(badHost.code).toBe(1);
    expect(badHost.stderr).toMatch(/--allowed-host "a\/b" is not a host name\nhint: /);
    writeConfig(cwd, { agents: [{ id: 'x', backend: { type: 'chatcompletion', modle: 'm' } }] }, 'bad.yaml');
    const badConfig = await runCli(['serve', '--config', 'bad.yaml'], quick);
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr).toMatch(
      /bad\.yaml: unknown key "modle" at agents\[0\]\.backend\nhint: did you mean "model"\?/,
    );
    const badFlag = await runCli(['serve', '--config', 'team.yaml', '--max-concurent', '2'], quick);
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toMatch(/unknown option '--max-concurent'.*--max-concurrent/);
  });
});

describe('no web page can use massgen serve, and no input takes it down', { timeout: 300_000 }, () => {
  it('refuses other Hosts (DNS rebinding), foreign and opaque Origins, cross-site fetches, preflights and non-JSON bodies', async () => {
    fake.server.setHandler(counted);
    const { server, key, health } = await serve();
    const host = `127.0.0.1:${server.port}`;
    const body = JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'pwned?' }] });
    const send = (headers: Record<string, string>, method = 'POST', path = '/v1/chat/completions') =>
      rawRequest(server.port, {
        method,
        path,
        headers: { host, authorization: `Bearer ${key}`, ...headers },
        ...(method === 'POST' ? { body } : {}),
      });
    const json = { 'content-type': 'application/json' };
    const cases: [string, Record<string, string>, string, number, RegExp][] = [
      [
        'a rebound DNS name',
        { ...json, host: `attacker.example:${server.port}` },
        'POST',
        403,
        /the Host "attacker\.example:\d+" is not an address massgen serve answers to: .*--allowed-host attacker\.example/,
      ],
      ['a rebound name reading models', { host: `attacker.example:${server.port}` }, 'GET', 403, /Host/],
      ['Origin: null (a sandboxed frame)', { ...json, origin: 'null' }, 'POST', 403, /Origin: null/],
      ['Origin: garbage', { ...json, origin: 'garbage' }, 'POST', 403, /another origin \("garbage"\)/],
      [
        'a page on evil.example',
        { 'content-type': 'text/plain', origin: 'http://evil.example' },
        'POST',
        403,
        /another origin/,
      ],
      [
        'another loopback port',
        { ...json, origin: `http://127.0.0.1:${server.port + 1}`, 'sec-fetch-site': 'same-site' },
        'POST',
        403,
        /another origin/,
      ],
      ['a no-cors read', { 'sec-fetch-site': 'cross-site' }, 'GET', 403, /Sec-Fetch-Site: cross-site/],
      [
        'a smuggled media type',
        { 'content-type': 'text/plain; x=application/json' },
        'POST',
        415,
        /"Content-Type: text\/plain; x=application\/json" is refused: send JSON/,
      ],
      ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'POST', 415, /Content-Type/],
      [
        'a CORS preflight',
        {
          origin: 'http://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
        'OPTIONS',
        403,
        /another origin/,
      ],
    ];
    for (const [name, headers, method, status, message] of cases) {
      const response = await send(headers, method, method === 'GET' ? '/v1/models' : '/v1/chat/completions');
      expect(response.status, name).toBe(status);
      expect(response.headers['access-control-allow-origin'], name).toBeUndefined();
      const error = (JSON.parse(response.body) as ErrorBody).error;
      expect(error.message, name).toMatch(message);
      expect(error.message.includes('\n'), name).toBe(false);
      expect(response.body, name).not.toContain('massgen/basic');
    }
    // Nothing ran; a program (no Origin, JSON, the key) is served.
    expect(fake.server.requests).toHaveLength(0);
    expect((await health()).runs).toEqual({ running: 0, waiting: 0 });
    const ok = await send(
      { 'content-type': 'application/json; charset=utf-8', 'sec-fetch-site': 'none' },
      'GET',
      '/v1/models',
    );
    expect(ok.status).toBe(200);
  });

  it('answers bad percent-encoding, bad Hosts and Origins, bad JSON and huge bodies with 4xx and keeps serving', async () => {
    const { server, key, health } = await serve();
    const host = `127.0.0.1:${server.port}`;
    const auth = { host, authorization: `Bearer ${key}` };
    for (const path of [
      '/v1/models/%E0%A4%A',
      '/v1/models/%',
      '/v1/models/massgen%2F%FF',
      '/%E0%A4%A',
      '/v1/%',
      '/health%00',
      '/v1/models/..%2F..%2Fetc%2Fpasswd',
    ]) {
      const response = await rawRequest(server.port, { path, headers: auth });
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect((JSON.parse(response.body) as ErrorBody).error.type, path).toBe('invalid_request_error');
    }
    expect(
      (
        JSON.parse(
          (await rawRequest(server.port, { path: '/v1/models/%E0%A4%A', headers: auth })).body,
        ) as ErrorBody
      ).error.message,
    ).toBe('the model id "%E0%A4%A" is not valid percent-encoding: encode it with encodeURIComponent');
    for (const body of [
      '',
      '{',
      'null',
      '['.repeat(50_000),
      '\u0000',
      `{"model":"massgen","messages":[{"role":"user","content":"${'x'.repeat(9 * 1024 * 1024)}"}]}`,
    ]) {
      const response = await rawRequest(server.port, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      expect(response.status, body.slice(0, 20)).toBeGreaterThanOrEqual(400);
      expect(response.status, body.slice(0, 20)).toBeLessThan(500);
    }
    for (const lines of [
      '',
      'Host: \r\n',
      'Host: a b\r\n',
      'Host: [::1\r\n',
      'Host: \xff\r\n',
      `Host: ${host}\r\nOrigin: null\r\n`,
      `Host: ${host}\r\nOrigin: http://[\r\n`,
      `Host: ${host}\r\nOrigin: ${'o'.repeat(60_000)}\r\n`,
      `Host: ${host}\r\nAuthorization: Bearer\r\n`,
      `Host: ${host}\r\nAuthorization: \xff\r\n`,
    ]) {
      const status = await rawBytes(
        server.port,
        `GET /v1/models HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`,
      );
      expect(status, lines.slice(0, 30)).toBeGreaterThanOrEqual(400);
      expect(status, lines.slice(0, 30)).toBeLessThan(500);
    }
    expect((await health()).status).toBe('ok');
  });
});

describe('admission and the models list', { timeout: 300_000 }, () => {
  it('20 parallel /v1/models while /health is polled: answered from the list made before listening, no listing per request', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha']), 'team.yaml');
    const events: string[] = [];
    const hosts = new HostAllowList('127.0.0.1');
    const app = createOpenAIApp(
      { cwd, env: {}, config: 'team.yaml', apiKey: 'k' },
      { hosts, onModelsListed: () => events.push('listed') },
    );
    await app.ready();
    expect(events).toEqual(['listed']);
    const listening = await listen(app.fetch, '127.0.0.1', 0);
    servers.push(listening);
    hosts.port = listening.port;
    const base = `http://127.0.0.1:${listening.port}`;
    const headers = { authorization: 'Bearer k' };

    let burstOver = false;
    const burst = Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await fetch(`${base}/v1/models`, { headers });
        events.push('models');
        return ((await response.json()) as { data: { id: string }[] }).data.map((m) => m.id);
      }),
    ).finally(() => {
      burstOver = true;
    });
    const polls: unknown[] = [];
    do {
      polls.push(await (await fetch(`${base}/health`)).json());
      events.push('health');
    } while (!burstOver);
    const lists = await burst;

    expect(new Set(lists.map((ids) => ids.join())).size).toBe(1);
    expect(lists[0]?.[0]).toBe('massgen');
    expect(lists[0]).toContain('massgen/basic/three_agents');
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) expect(poll).toEqual({ status: 'ok' });
    // Every request was answered from the list: none of the 20 listed the configs again.
    expect(events.filter((e) => e === 'models')).toHaveLength(20);
    expect(events.filter((e) => e === 'listed').length).toBeLessThanOrEqual(2);
    expect(events[0]).toBe('listed');
  });
});
