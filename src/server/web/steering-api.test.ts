import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gate } from '../../testing/scripted-backend.js';
import {
  startFakeOpenAIServer,
  type FakeChatRequestBody,
  type FakeOpenAIServer,
  type FakeResponse,
} from '../../testing/fake-openai-server.js';
import { ConfigCatalog } from './config-catalog.js';
import { rawRequest, runEventsUntilDone } from './raw-http.test-support.js';
import { RunHub, RunStartError } from './run-hub.js';
import { startWebServer, type WebServer } from './web-server.js';

/**
 * Steering over real HTTP (docs/web.md): `POST /api/runs/:id/messages` and `/answer-now` through the
 * server's guard, the model seeing the message in its next request; runs that cannot start answer 400
 * with every problem and leave nothing behind; `GET /api/configs` says which configs can run.
 */
const PAST = 'log_20261124_101500_123456';
let fake: FakeOpenAIServer;
let cwd: string;
const servers: WebServer[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-web-steer-'));
  fs.mkdirSync(path.join(cwd, '.massgen', 'massgen_logs', PAST), { recursive: true });
  const agent = (id: string) =>
    `  - id: ${id}\n    backend: { type: chatcompletion, model: m-${id}, base_url: "${fake.url}" }`;
  fs.writeFileSync(path.join(cwd, 'team.yaml'), `agents:\n${agent('a')}\n${agent('b')}\n`);
  fs.writeFileSync(
    path.join(cwd, 'keys.yaml'),
    'agents:\n  - { id: gpt, backend: { type: openai, model: gpt-4o } }\n  - { id: claude, backend: { type: claude, model: claude-sonnet-4-5 } }\n',
  );
});
afterEach(async () => {
  fake.reset();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

async function start() {
  const server = await startWebServer({ cwd, env: {}, port: 0, staticDir: cwd });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const api = (route: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${server.authToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const json = async (route: string, body?: unknown) => {
    const response = await api(route, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** The run's events until it is done. */
  const events = (runId: string) => runEventsUntilDone(server, runId);
  return { server, api, json, events };
}

const textOf = (body: FakeChatRequestBody) =>
  (body.messages ?? [])
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
const tools = (body: FakeChatRequestBody) => (body.tools ?? []).map((t) => t.function.name);
const votable = (body: FakeChatRequestBody) =>
  JSON.stringify((body.tools ?? []).find((t) => t.function.name === 'vote') ?? {}).includes('agent1');

/** a answers, b votes for it; a presents. */
function converge(body: FakeChatRequestBody): FakeResponse {
  if (!tools(body).includes('new_answer')) return { text: `Final from ${body.model}` };
  if (votable(body))
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }] };
  return { toolCalls: [{ name: 'new_answer', arguments: { content: `Answer of ${body.model}` } }] };
}

describe('POST /api/runs/:id/messages', () => {
  it('202 with the seq; the named agent’s next request carries the message, the other’s never', async () => {
    const { json, events } = await start();
    const sent = gate();
    const held = new Set<string>();
    fake.setHandler(async (body) => {
      if (!held.has(body.model ?? '')) {
        held.add(body.model ?? '');
        await sent.wait();
      }
      return converge(body);
    });
    const started = await json('/api/runs', { question: 'Capital of France?', config: 'team.yaml' });
    expect(started.status).toBe(201);
    const id = started.body.id as string;
    await waitUntil(() => fake.requests.length >= 2);
    const message = await json(`/api/runs/${id}/messages`, { text: 'Mention the Seine.', agentId: 'b' });
    expect(message.status).toBe(202);
    sent.open();
    const all = await events(id);
    const accepted = all.find((e) => e.type === 'human.message');
    expect(accepted).toMatchObject({
      seq: message.body.seq,
      text: 'Mention the Seine.',
      target: 'b',
      source: 'web',
    });
    expect(all.filter((e) => e.type === 'human.message.delivered')).toMatchObject([
      { agentId: 'b', messageSeq: message.body.seq },
    ]);
    const bodies = fake.requests.map((r) => r.body as FakeChatRequestBody);
    expect(
      bodies.filter((b) => b.model === 'm-b').some((b) => textOf(b).includes('Mention the Seine.')),
    ).toBe(true);
    for (const b of bodies.filter((b) => b.model === 'm-a')) expect(textOf(b)).not.toContain('Seine');
    // The run is over now.
    const late = await json(`/api/runs/${id}/messages`, { text: 'too late' });
    expect(late.status).toBe(409);
  });

  it('400 for a bad body or an unknown agent (naming the known ones), 404 unknown run, 409 past run; guarded', async () => {
    const { api, json, server } = await start();
    fake.setHandler(() => ({ hang: true }));
    const id = (await json('/api/runs', { question: 'wait', config: 'team.yaml' })).body.id as string;
    await waitUntil(() => fake.requests.length >= 2);
    const route = `/api/runs/${id}/messages`;
    for (const bad of [
      {},
      { text: '' },
      { text: '   ' },
      { text: 'x'.repeat(4001) },
      { text: 'hi', extra: 1 },
      { text: 5 },
    ])
      expect((await json(route, bad)).status).toBe(400);
    const unknown = await json(route, { text: 'hi', agentId: 'zed' });
    expect(unknown).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('the agents are a, b') },
    });
    expect((await json('/api/runs/run999/messages', { text: 'hi' })).status).toBe(404);
    expect((await json(`/api/runs/${PAST}/messages`, { text: 'hi' })).status).toBe(409);
    expect((await json('/api/runs/run999/answer-now', {})).status).toBe(404);
    expect((await json(`/api/runs/${id}/answer-now`, { now: true })).status).toBe(400);
    // Nobody has answered yet: nothing to present.
    expect(await json(`/api/runs/${id}/answer-now`, {})).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining('no agent has answered yet') },
    });
    // The guard: JSON only, the token, this origin.
    expect((await api(route, undefined, {})).status).toBe(404);
    const plain = await fetch(`http://127.0.0.1:${server.port}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.authToken}`, 'content-type': 'text/plain' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(plain.status).toBe(415);
    const noToken = await fetch(`http://127.0.0.1:${server.port}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(noToken.status).toBe(401);
    const elsewhere = await rawRequest(server.port, {
      method: 'POST',
      path: route,
      headers: {
        host: `127.0.0.1:${server.port}`,
        origin: 'http://evil.example',
        authorization: `Bearer ${server.authToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(elsewhere.status).toBe(403);
    expect((await json(`/api/runs/${id}/cancel`, {})).status).toBe(200);
  });
});

describe('POST /api/runs/:id/answer-now', () => {
  it('202; coordination stops and the answer there is presented', async () => {
    const { json, events } = await start();
    fake.setHandler((body) => {
      // a answers once, then thinks forever; b never finishes a turn.
      if (body.model === 'm-b' && tools(body).includes('new_answer')) return { hang: true };
      if (
        body.model === 'm-a' &&
        tools(body).includes('new_answer') &&
        textOf(body).includes('Answer of m-a')
      )
        return { hang: true };
      return converge(body);
    });
    const id = (await json('/api/runs', { question: 'Q?', config: 'team.yaml' })).body.id as string;
    await waitUntil(
      () => fake.requests.filter((r) => (r.body as FakeChatRequestBody).model === 'm-a').length >= 2,
    );
    expect(await json(`/api/runs/${id}/answer-now`, {})).toMatchObject({ status: 202 });
    const all = await events(id);
    expect(all.find((e) => e.type === 'coordination.answer_now')).toMatchObject({ source: 'web' });
    expect(all.find((e) => e.type === 'coordination.finished')).toMatchObject({
      reason: 'answer_now',
      winnerId: 'a',
    });
    expect(all.at(-1)).toMatchObject({
      type: 'run.finished',
      status: 'completed',
      finalAnswer: 'Final from m-a',
    });
  });
});

describe('POST /api/runs that cannot start', () => {
  it('400 with every agent’s missing key at once; no live run, no session', async () => {
    const { json } = await start();
    const sessions = () =>
      fs
        .readdirSync(path.join(cwd, '.massgen'), { recursive: true })
        .filter((f) => String(f).startsWith('sessions'));
    const before = sessions();
    const response = await json('/api/runs', { question: 'Q?', config: 'keys.yaml' });
    expect(response.status).toBe(400);
    const problems = response.body.problems as {
      agentId?: string;
      key?: string;
      message: string;
      hint: string;
    }[];
    expect(problems.map((p) => [p.agentId, p.key])).toEqual([
      ['gpt', 'OPENAI_API_KEY'],
      ['claude', 'ANTHROPIC_API_KEY'],
    ]);
    for (const p of problems) expect(p.hint).toMatch(/export [A-Z_]+=/);
    expect(response.body.error).toBe('the run cannot start: 2 problems (each is listed)');
    expect((await json('/api/runs')).body.live).toEqual([]);
    expect(sessions()).toEqual(before);
  });
});

describe('GET /api/configs', () => {
  it('says for each config whether it can run here and which variables it misses', async () => {
    const { json } = await start();
    const listed = (await json('/api/configs')).body as unknown as {
      ref: string;
      runnable: boolean;
      missing: string[];
    }[];
    expect(listed.find((c) => c.ref === 'team.yaml')).toMatchObject({ runnable: true, missing: [] });
    expect(listed.find((c) => c.ref === 'keys.yaml')).toMatchObject({
      runnable: false,
      missing: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
    });
    const examples = listed.filter((c) => c.ref.startsWith('@examples/'));
    expect(examples.length).toBeGreaterThan(5);
    for (const e of examples) expect(typeof e.runnable).toBe('boolean');
  });

  it('parses a config again only when it changed; the examples once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-catalog-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'x.yaml'),
        'agents:\n  - { id: gpt, backend: { type: openai, model: gpt-4o } }\n',
      );
      const catalog = new ConfigCatalog({ cwd: dir, env: { ANTHROPIC_API_KEY: 'k' }, home: dir });
      const first = await catalog.refresh();
      expect(first.find((c) => c.ref === 'x.yaml')).toMatchObject({
        runnable: false,
        missing: ['OPENAI_API_KEY'],
      });
      const again = await catalog.refresh();
      // Unchanged files keep their readiness object: nothing was parsed again.
      expect(again.find((c) => c.ref === 'x.yaml')?.missing).toBe(
        first.find((c) => c.ref === 'x.yaml')?.missing,
      );
      fs.writeFileSync(
        path.join(dir, 'x.yaml'),
        'agents:\n  - { id: c, backend: { type: claude, model: claude-sonnet-4-5 } }\n',
      );
      fs.utimesSync(path.join(dir, 'x.yaml'), new Date(), new Date(Date.now() + 5000));
      expect((await catalog.refresh()).find((c) => c.ref === 'x.yaml')).toMatchObject({
        runnable: true,
        missing: [],
      });
      expect(catalog.cached()).not.toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Waits for a condition the test cannot await directly (the fake server's requests). */
async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('RunHub: a run that fails while it is prepared', () => {
  it('is not left in the hub, and no session is stored', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-hub-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'local.yaml'),
        'agents:\n  - { id: l, backend: { type: local, model: ./no-such-model.gguf } }\n',
      );
      const hub = new RunHub({ cwd: dir, env: {}, resolveConfig: (ref) => path.join(dir, ref) });
      const failure = await hub.start({ question: 'Q?', config: 'local.yaml' }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(RunStartError);
      const problems = (failure as RunStartError).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]?.message).toMatch(/no-such-model\.gguf/);
      expect(hub.list()).toEqual([]);
      expect(fs.existsSync(path.join(dir, '.massgen', 'sessions'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
