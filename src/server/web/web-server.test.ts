import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../testing/fake-openai-server.js';
import { ConfigError } from '../../types/errors.js';
import type { SocketMessage, WebServer } from './web-server.js';
import { startWebServer } from './web-server.js';

/**
 * The web server in-process over real HTTP and WebSockets on loopback: the token rule for non-loopback
 * hosts, cross-origin upgrades, request bodies checked at the boundary, file browsing confined to a
 * run's folders, and several watchers of one run catching up without duplicates.
 */
const PAST = 'log_20261124_101500_123456';
let fake: FakeOpenAIServer;
let cwd: string;
const servers: WebServer[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-web-'));
  const logDir = path.join(cwd, '.massgen', 'massgen_logs', PAST);
  fs.mkdirSync(logDir, { recursive: true });
  fs.writeFileSync(path.join(logDir, 'status.json'), JSON.stringify({ question: 'old?', final: {} }));
  fs.writeFileSync(path.join(logDir, 'big.txt'), 'x'.repeat(600 * 1024));
  fs.writeFileSync(path.join(cwd, 'secret.txt'), 'not for the browser');
  fs.writeFileSync(
    path.join(cwd, 'team.yaml'),
    ['a', 'b']
      .map(
        (id) =>
          `  - id: ${id}\n    backend: { type: chatcompletion, model: m-${id}, base_url: "${fake.url}" }`,
      )
      .join('\n')
      .replace(/^/, 'agents:\n'),
  );
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

async function start(
  options: { host?: string; authToken?: string } = {},
): Promise<WebServer & { base: string }> {
  const server = await startWebServer({ cwd, env: {}, port: 0, ...options });
  servers.push(server);
  // Tests stay on loopback whatever the server binds.
  return Object.assign(server, { base: `http://127.0.0.1:${server.port}` });
}

/** The HTTP status a WebSocket upgrade is answered with (101 when it is accepted). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    ws.on('error', (error) =>
      error.message.includes('Unexpected server response') ? undefined : reject(error),
    );
  });
}

/** Every message a watcher of `runId` gets after `after`, until `done`. */
function watch(base: string, runId: string, after = -1): Promise<SocketMessage[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws?run=${runId}&after=${after}`);
    const messages: SocketMessage[] = [];
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as SocketMessage;
      messages.push(message);
      if (message.type !== 'event') {
        ws.close();
        resolve(messages);
      }
    });
    ws.on('error', reject);
  });
}

describe('the web server', () => {
  it('on a non-loopback host generates a token and refuses HTTP and WebSocket requests without it', async () => {
    const server = await start({ host: '0.0.0.0' });
    expect(server.authToken).toMatch(/^[\w-]{20,}$/);
    expect(server.url).toContain(`?token=${server.authToken}`);

    const denied = await fetch(`${server.base}/api/configs`);
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: string }).error).toContain('token');
    expect((await fetch(`${server.base}/api/configs?token=wrong`)).status).toBe(401);
    const allowed = await fetch(`${server.base}/api/configs`, {
      headers: { authorization: `Bearer ${server.authToken}` },
    });
    expect(allowed.status).toBe(200);
    // The token in the address becomes a cookie, so the page's own requests carry it.
    const page = await fetch(`${server.base}/?token=${server.authToken}`);
    expect(page.headers.get('set-cookie')).toContain(`massgen_token=${server.authToken}`);

    const ws = `${server.base.replace('http', 'ws')}/ws?run=run1`;
    expect(await upgradeStatus(ws)).toBe(401);
    expect(await upgradeStatus(`${ws}&token=${server.authToken}`)).toBe(101);
  });

  it('refuses cross-origin WebSocket upgrades and an empty --auth-token', async () => {
    const server = await start();
    expect(server.authToken).toBeNull();
    const ws = `${server.base.replace('http', 'ws')}/ws?run=run1`;
    expect(await upgradeStatus(ws, { origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(ws, { origin: server.base })).toBe(101);
    await expect(startWebServer({ cwd, env: {}, port: 0, authToken: ' ' })).rejects.toThrow(ConfigError);
  });

  it('checks request bodies and names the bad key', async () => {
    const server = await start();
    const post = (route: string, body: string) =>
      fetch(`${server.base}${route}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
    const wrongType = await post('/api/runs', JSON.stringify({ question: 5, config: 'team.yaml' }));
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as { error: string }).error).toMatch(/^"question": /);
    const notJson = await post('/api/runs', '{');
    expect(((await notJson.json()) as { error: string }).error).toBe('the request body is not JSON');
    const unknownKey = await post(
      '/api/runs/run1/approvals',
      JSON.stringify({ agentId: 'a', callId: 'c', approved: true, x: 1 }),
    );
    expect(unknownKey.status).toBe(400);
    const notOffered = await post(
      '/api/runs',
      JSON.stringify({ question: 'q', config: '../elsewhere.yaml' }),
    );
    expect(notOffered.status).toBe(404);
    expect((await fetch(`${server.base}/api/nothing`)).status).toBe(404);
  });

  it('browses a run folder only: no escapes, and a file too large to preview says so', async () => {
    const server = await start();
    const file = (p: string) =>
      fetch(`${server.base}/api/runs/${PAST}/file?root=log&path=${encodeURIComponent(p)}`);
    const escape = await file('../../../secret.txt');
    expect(escape.status).toBe(403);
    expect(JSON.stringify(await escape.json())).not.toContain('not for the browser');
    expect(
      (await fetch(`${server.base}/api/runs/${PAST}/download?root=log&path=..%2F..%2F..%2Fsecret.txt`))
        .status,
    ).toBe(403);
    expect(await (await file('big.txt')).json()).toEqual({
      kind: 'too_large',
      path: 'big.txt',
      size: 600 * 1024,
      limit: 512 * 1024,
    });
    expect((await fetch(`${server.base}/api/runs/..%2F..%2F/file?root=log&path=status.json`)).status).toBe(
      404,
    );
  });

  it('lets several watchers follow one run and catch up from a sequence number without duplicates', async () => {
    fake.setHandler((body) =>
      (body.tools ?? []).some((t) => t.function.name === 'vote') &&
      JSON.stringify(body.messages).includes('agent1')
        ? { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }], delayMs: 5 }
        : (body.tools ?? []).length > 0
          ? {
              text: 'thinking',
              toolCalls: [{ name: 'new_answer', arguments: { content: '42' } }],
              delayMs: 5,
            }
          : { text: 'The answer is 42.' },
    );
    const server = await start();
    const started = await fetch(`${server.base}/api/runs`, {
      method: 'POST',
      body: JSON.stringify({ question: 'six times seven?', config: 'team.yaml' }),
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    const [first, second] = await Promise.all([watch(server.base, id), watch(server.base, id)]);
    const late = await watch(server.base, id, 5);

    const seqs = (messages: SocketMessage[]) =>
      messages.flatMap((m) => (m.type === 'event' ? [m.event.seq] : []));
    expect(first.at(-1)).toEqual({ type: 'done', runId: id });
    expect(seqs(first)).toEqual(seqs(second));
    expect(new Set(seqs(first)).size).toBe(seqs(first).length);
    expect(seqs(late)).toEqual(seqs(first).filter((s) => s > 5));
    const last = first.at(-2);
    expect(last?.type === 'event' && last.event.type).toBe('run.finished');
    const unknown = await watch(server.base, 'run99');
    expect(unknown).toEqual([{ type: 'error', message: 'unknown run "run99"' }]);
  });
});
