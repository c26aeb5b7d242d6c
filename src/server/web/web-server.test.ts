import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../testing/fake-openai-server.js';
import { ConfigError } from '../../types/errors.js';
import { closeCode, openSocket, rawBytes, rawRequest, upgradeStatus } from './raw-http.test-support.js';
import type { SocketMessage, WebServer } from './web-server.js';
import { startWebServer, type WebServerOptions } from './web-server.js';

/**
 * The web server in-process over real HTTP and WebSockets on loopback: the token on every address and
 * its cookie, the Host allow-list, no state change or read from another origin (not even with the
 * cookie a browser would attach), request bodies checked at the boundary, file browsing confined to a
 * run's folders, several watchers of one run, and input that must never take the server down.
 */
const PAST = 'log_20261124_101500_123456';
let fake: FakeOpenAIServer;
let cwd: string;
/** The built page, as `npm run build` lays it out. */
let staticDir: string;
const servers: WebServer[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-web-'));
  const logDir = path.join(cwd, '.massgen', 'massgen_logs', PAST);
  fs.mkdirSync(logDir, { recursive: true });
  fs.writeFileSync(path.join(logDir, 'status.json'), JSON.stringify({ question: 'old?', final: {} }));
  fs.writeFileSync(path.join(logDir, 'big.txt'), 'x'.repeat(600 * 1024));
  fs.writeFileSync(path.join(cwd, 'secret.txt'), 'not for the browser');
  staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-web-page-'));
  fs.mkdirSync(path.join(staticDir, 'assets'));
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>massgen</title>');
  fs.writeFileSync(path.join(staticDir, 'assets', 'x.js'), 'export {};');
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
  fs.rmSync(staticDir, { recursive: true, force: true });
});

type Started = WebServer & {
  base: string;
  /** `fetch` as the page's own code or a script with the token sends it. */
  api: (route: string, init?: RequestInit) => Promise<Response>;
  ws: string;
};

async function start(options: Partial<WebServerOptions> = {}): Promise<Started> {
  const server = await startWebServer({ cwd, env: {}, port: 0, staticDir, ...options });
  servers.push(server);
  // Tests stay on loopback whatever the server binds.
  const base = `http://127.0.0.1:${server.port}`;
  const auth: Record<string, string> = server.authToken
    ? { authorization: `Bearer ${server.authToken}` }
    : {};
  return Object.assign(server, {
    base,
    ws: `ws://127.0.0.1:${server.port}/ws`,
    api: (route: string, init: RequestInit = {}) =>
      fetch(`${base}${route}`, {
        ...init,
        headers: { ...auth, ...(init.headers as Record<string, string>) },
      }),
  });
}

const postJson = (server: Started, route: string, body: unknown) =>
  server.api(route, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

/** Every message a watcher of `runId` gets after `after`, until `done`. */
function watch(server: Started, runId: string, after = -1): Promise<SocketMessage[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${server.ws}?run=${runId}&after=${after}&token=${server.authToken}`);
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

/** A run whose agents wait forever on the model: live until cancelled. */
async function hangingRun(server: Started): Promise<string> {
  fake.setHandler(() => ({ hang: true }));
  const started = await postJson(server, '/api/runs', { question: 'wait', config: 'team.yaml' });
  expect(started.status).toBe(201);
  return ((await started.json()) as { id: string }).id;
}

async function liveRuns(server: Started): Promise<{ id: string; done: boolean }[]> {
  return ((await (await server.api('/api/runs')).json()) as { live: { id: string; done: boolean }[] }).live;
}

async function cancelAndWait(server: Started, id: string): Promise<void> {
  expect((await postJson(server, `/api/runs/${id}/cancel`, {})).status).toBe(200);
  const messages = await watch(server, id);
  expect(messages.at(-1)).toEqual({ type: 'done', runId: id });
}

describe('the web server: tokens', () => {
  it('generates a token on loopback too, and refuses HTTP and WebSocket requests without it', async () => {
    const server = await start();
    const token = server.authToken as string;
    expect(token).toMatch(/^[\w-]{20,}$/);
    expect(server.url).toBe(`${server.base}/?token=${token}`);

    const denied = await fetch(`${server.base}/api/configs`);
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: string }).error).toMatch(/needs its token.*--no-auth/);
    expect((await fetch(`${server.base}/`)).status).toBe(401);
    expect((await fetch(`${server.base}/api/configs?token=wrong`)).status).toBe(401);
    expect((await server.api('/api/configs')).status).toBe(200);
    // The scheme is case-insensitive (RFC 7235).
    const lower = await fetch(`${server.base}/api/configs`, {
      headers: { authorization: `bearer ${token}` },
    });
    expect(lower.status).toBe(200);

    expect(await upgradeStatus(`${server.ws}?run=run1`)).toBe(401);
    expect(await upgradeStatus(`${server.ws}?run=run1&token=wrong`)).toBe(401);
    expect(await upgradeStatus(`${server.ws}?run=run1&token=${token}`)).toBe(101);
  });

  it('exchanges the token in the address for an HttpOnly SameSite=Strict cookie of this port, and redirects to the clean address', async () => {
    const server = await start();
    const token = server.authToken as string;
    const cookieName = `massgen_token_${server.port}`;

    // Typed or opened by --open (Sec-Fetch-Site: none): a redirect that drops the token from the address.
    const typed = await rawRequest(server.port, {
      path: `/runs/run7?token=${token}&x=1`,
      headers: { host: `127.0.0.1:${server.port}`, 'sec-fetch-site': 'none' },
    });
    expect(typed.status).toBe(302);
    expect(typed.headers.location).toBe('/runs/run7?x=1');
    expect(typed.headers['set-cookie']).toEqual([
      `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
    ]);
    // After a link from elsewhere a Strict cookie would not follow a redirect: the page is served and
    // drops the token from the address bar itself.
    const linked = await rawRequest(server.port, {
      path: `/?token=${token}`,
      headers: { host: `127.0.0.1:${server.port}`, 'sec-fetch-site': 'cross-site' },
    });
    expect(linked.status).toBe(200);
    expect(linked.headers['set-cookie']?.[0]).toContain(`${cookieName}=${token}`);
    expect(linked.headers['referrer-policy']).toBe('no-referrer');
    expect(linked.headers['x-frame-options']).toBe('DENY');
    expect(linked.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const withCookie = (name: string) =>
      fetch(`${server.base}/api/configs`, { headers: { cookie: `${name}=${token}` } });
    expect((await withCookie(cookieName)).status).toBe(200);
    expect((await withCookie('massgen_token_1')).status).toBe(401);
    expect(await upgradeStatus(`${server.ws}?run=run1`, { cookie: `other=1; ${cookieName}=${token}` })).toBe(
      101,
    );
    // A wrong token in the address sets nothing.
    const wrong = await rawRequest(server.port, {
      path: '/?token=wrong',
      headers: { host: `127.0.0.1:${server.port}`, 'sec-fetch-site': 'none' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('--no-auth serves without a token on loopback only; an empty token or a bad --allowed-host stops it', async () => {
    const open = await start({ auth: false });
    expect(open.authToken).toBeNull();
    expect(open.url).toBe(`${open.base}/`);
    expect((await fetch(`${open.base}/api/configs`)).status).toBe(200);
    await expect(startWebServer({ cwd, env: {}, port: 0, host: '0.0.0.0', auth: false })).rejects.toThrow(
      /--no-auth is refused on 0\.0\.0\.0/,
    );
    await expect(startWebServer({ cwd, env: {}, port: 0, authToken: ' ' })).rejects.toThrow(ConfigError);
    await expect(startWebServer({ cwd, env: {}, port: 0, allowedHosts: ['a b'] })).rejects.toThrow(
      /--allowed-host "a b" is not a host name/,
    );
  });
});

describe('the web server: Host allow-list (DNS rebinding)', () => {
  it('answers the loopback names on its port and --allowed-host names; refuses any other Host, for the page, files, API and socket', async () => {
    const server = await start({ allowedHosts: ['massgen.test', 'pinned.test:9999'] });
    const token = server.authToken as string;
    const get = (host: string, route = '/api/configs') =>
      rawRequest(server.port, { path: route, headers: { host, authorization: `Bearer ${token}` } });
    for (const host of [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      `[::1]:${server.port}`,
      'massgen.test',
      `massgen.test:${server.port}`,
      'pinned.test:9999',
    ])
      expect((await get(host)).status, host).toBe(200);
    for (const host of [
      `attacker.example:${server.port}`,
      `localhost.attacker.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      '127.0.0.1',
      'pinned.test',
      `localhost.:${server.port}`,
      `127.0.0.1:${server.port}@attacker.example`,
    ]) {
      for (const route of [
        '/',
        '/index.html',
        '/assets/x.js',
        '/api/configs',
        `/api/runs/${PAST}/file?root=log&path=status.json`,
      ]) {
        const refused = await get(host, route);
        // 403 from the allow-list; @hono/node-server answers 400 to a Host that is not a host at all.
        expect([400, 403], `${host} ${route}`).toContain(refused.status);
        expect(refused.body).not.toContain('"question"');
        expect(refused.body).not.toContain('<title>massgen');
      }
    }
    const refused = await get(`attacker.example:${server.port}`);
    expect(JSON.parse(refused.body)).toEqual({
      error: `the Host "attacker.example:${server.port}" is not an address massgen --web answers to: use http://127.0.0.1:${server.port}/, or start it with --allowed-host attacker.example`,
    });
    expect(
      await upgradeStatus(`${server.ws}?run=run1&token=${token}`, {
        host: `attacker.example:${server.port}`,
      }),
    ).toBe(403);
    // An absolute-form request target names its own host: checked too.
    const absolute = await rawBytes(
      server.port,
      `GET http://attacker.example:${server.port}/api/configs HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expect(absolute).toBe(403);
  });
});

describe('the web server: no page elsewhere can start, cancel or read a run', () => {
  it('refuses state changes and reads from other origins (even with the cookie), Origin null and garbage, and non-JSON bodies', async () => {
    const server = await start();
    const token = server.authToken as string;
    const host = `127.0.0.1:${server.port}`;
    const id = await hangingRun(server);
    // What a browser attaches to a request from another port of 127.0.0.1: cookies do not tell ports apart.
    const cookie = `massgen_token_${server.port}=${token}`;
    const attempt = (method: string, route: string, headers: Record<string, string>, body?: string) =>
      rawRequest(server.port, {
        method,
        path: route,
        headers: { host, cookie, ...headers },
        ...(body === undefined ? {} : { body }),
      });
    const start_ = JSON.stringify({ question: 'pwned', config: 'team.yaml' });

    const refusals: [string, string, string, Record<string, string>, string | undefined, number, RegExp][] = [
      [
        'no-cors text/plain from evil.example',
        'POST',
        '/api/runs',
        {
          origin: 'http://evil.example',
          'content-type': 'text/plain;charset=UTF-8',
          'sec-fetch-site': 'cross-site',
        },
        start_,
        403,
        /another origin \("http:\/\/evil\.example"\)/,
      ],
      [
        'another loopback port',
        'POST',
        '/api/runs',
        {
          origin: `http://127.0.0.1:${server.port + 1}`,
          'content-type': 'application/json',
          'sec-fetch-site': 'same-site',
        },
        start_,
        403,
        /another origin/,
      ],
      [
        'a sandboxed frame (Origin: null)',
        'POST',
        '/api/runs',
        { origin: 'null', 'content-type': 'application/json' },
        start_,
        403,
        /Origin: null/,
      ],
      [
        'Origin: garbage',
        'POST',
        '/api/runs',
        { origin: 'garbage', 'content-type': 'application/json' },
        start_,
        403,
        /another origin \("garbage"\)/,
      ],
      [
        'Origin with a path',
        'POST',
        '/api/runs',
        { origin: `http://${host}/x`, 'content-type': 'application/json' },
        start_,
        403,
        /another origin/,
      ],
      [
        'a form post',
        'POST',
        '/api/runs',
        { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-site' },
        'question=pwned',
        403,
        /Sec-Fetch-Site: same-site/,
      ],
      [
        'a smuggled media type',
        'POST',
        '/api/runs',
        { 'content-type': 'text/plain; x=application/json' },
        start_,
        415,
        /"Content-Type: text\/plain; x=application\/json" is refused: send JSON/,
      ],
      ['no content type', 'POST', '/api/runs', {}, start_, 415, /no Content-Type/],
      [
        'cancel from evil.example',
        'POST',
        `/api/runs/${id}/cancel`,
        { origin: 'http://evil.example', 'content-type': 'text/plain' },
        '',
        403,
        /another origin/,
      ],
      [
        'cancel from a form',
        'POST',
        `/api/runs/${id}/cancel`,
        { 'content-type': 'multipart/form-data; boundary=x' },
        '--x--',
        415,
        /Content-Type/,
      ],
      [
        'cancel from another port',
        'POST',
        `/api/runs/${id}/cancel`,
        { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
        '{}',
        403,
        /Sec-Fetch-Site/,
      ],
      [
        'read from another port (no-cors)',
        'GET',
        `/api/runs/${id}`,
        { 'sec-fetch-site': 'same-site' },
        undefined,
        403,
        /Sec-Fetch-Site/,
      ],
      [
        'read with CORS from evil.example',
        'GET',
        '/api/runs',
        { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
        undefined,
        403,
        /another origin/,
      ],
      [
        'read a file from another site',
        'GET',
        `/api/runs/${PAST}/file?root=log&path=status.json`,
        { 'sec-fetch-site': 'cross-site' },
        undefined,
        403,
        /Sec-Fetch-Site/,
      ],
    ];
    for (const [name, method, route, headers, body, status, message] of refusals) {
      const response = await attempt(method, route, headers, body);
      expect(response.status, name).toBe(status);
      const error = (JSON.parse(response.body) as { error: string }).error;
      expect(error, name).toMatch(message);
      expect(error.includes('\n'), name).toBe(false);
      expect(response.body, name).not.toContain('"events"');
    }
    for (const origin of ['null', 'garbage', 'http://evil.example', `http://127.0.0.1:${server.port + 1}`])
      expect(await upgradeStatus(`${server.ws}?run=${id}&token=${token}`, { origin }), origin).toBe(403);
    expect(await upgradeStatus(`${server.ws}?run=${id}`, { cookie, 'sec-fetch-site': 'same-site' })).toBe(
      403,
    );

    // Nothing started, nothing cancelled.
    expect(await liveRuns(server)).toEqual([expect.objectContaining({ id, done: false })]);
    // The page itself: same origin, JSON (parameters allowed), the cookie.
    const own = await attempt(
      'POST',
      `/api/runs/${id}/cancel`,
      {
        origin: `http://${host}`,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json; charset=utf-8',
      },
      '{}',
    );
    expect(own.status).toBe(200);
    const messages = await watch(server, id);
    expect(messages.at(-1)).toEqual({ type: 'done', runId: id });
  });
});

describe('the web server: no input takes it down', () => {
  it('a WebSocket upgrade with Origin null or garbage, an oversized frame, bad UTF-8: refused or that socket closed; runs and other sockets live on', async () => {
    const server = await start();
    const token = server.authToken as string;
    const id = await hangingRun(server);
    const url = `${server.ws}?run=${id}&token=${token}`;
    for (const origin of ['null', 'garbage', 'http://', 'http://[', '::::', 'x'.repeat(10_000)])
      expect(await upgradeStatus(url, { origin }), origin.slice(0, 20)).toBe(403);
    for (const host of ['[::1', 'a:b:c', `127.0.0.1:${server.port}/x`])
      expect(await upgradeStatus(url, { host }), host).toBeGreaterThanOrEqual(400);

    const bystander = await openSocket(url);
    const bystanderDone = new Promise<void>((resolve) =>
      bystander.on('message', (data) => {
        if ((JSON.parse(String(data)) as SocketMessage).type === 'done') resolve();
      }),
    );
    const big = await openSocket(url);
    const bigClosed = closeCode(big);
    big.send('x'.repeat(64 * 1024));
    expect(await bigClosed).toBe(1009);
    const garbled = await openSocket(url);
    const garbledClosed = closeCode(garbled);
    garbled.send(Buffer.from([0xc3, 0x28, 0xff]), { binary: false });
    expect(await garbledClosed).toBe(1007);

    expect(bystander.readyState).toBe(WebSocket.OPEN);
    expect((await server.api('/api/configs')).status).toBe(200);
    expect(await liveRuns(server)).toEqual([expect.objectContaining({ id, done: false })]);
    await cancelAndWait(server, id);
    await bystanderDone;
    bystander.close();
  });

  it('bad percent-encoding, bad JSON, huge bodies, bad Host and Origin values: 4xx, never 5xx, and it still serves', async () => {
    const server = await start();
    const token = server.authToken as string;
    const host = `127.0.0.1:${server.port}`;
    const auth = { host, authorization: `Bearer ${token}` };
    const id = await hangingRun(server);

    const paths = [
      '/api/runs/%E0%A4%A',
      '/%E0%A4%A',
      '/assets/%',
      '/%',
      '/%00',
      '/index.html%00.js',
      '/assets',
      '/..%2f..%2fsecret.txt',
      '/%2e%2e/%2e%2e/secret.txt',
      `/api/runs/${id}/file?root=%&path=%E0%A4%A`,
      `/api/runs/${PAST}/file?root=log&path=%E0%A4%A`,
      `/api/runs/${PAST}/download?root=log&path=%FF%FE`,
      '/api/runs/%2e%2e%2f/tree?root=log',
      `/api/runs/${id}?after=%`,
      '/ws',
    ];
    for (const route of paths) {
      const response = await rawRequest(server.port, { path: route, headers: auth });
      expect(response.status, route).toBeLessThan(500);
      expect(response.body, route).not.toContain('not for the browser');
    }
    const bodies = [
      '',
      '{',
      'null',
      '[]',
      '"x"',
      '\u0000',
      '['.repeat(50_000),
      '{"question":{"toString":1}}',
      '{"__proto__":{"question":"x"}}',
    ];
    for (const route of ['/api/runs', '/api/validate', `/api/runs/${id}/approvals`]) {
      for (const body of bodies) {
        const response = await rawRequest(server.port, {
          method: 'POST',
          path: route,
          headers: { ...auth, 'content-type': 'application/json' },
          body,
        });
        expect(response.status, `${route} ${body.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${route} ${body.slice(0, 20)}`).toBeLessThan(500);
      }
    }
    // Every body but a run's start (which may carry attachments: media-route.test.ts) is held to 1 MiB.
    const huge = JSON.stringify({ config: 'x'.repeat(2 * 1024 * 1024) });
    const tooLarge = await rawRequest(server.port, {
      method: 'POST',
      path: '/api/validate',
      headers: { ...auth, 'content-type': 'application/json' },
      body: huge,
    });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toEqual({
      error: 'the request body is larger than 1 MiB: send a shorter question',
    });
    // Without a Content-Length (chunked): counted as it arrives.
    const chunked = await rawBytes(
      server.port,
      `POST /api/validate HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${(2 * 1024 * 1024).toString(16)}\r\n${'x'.repeat(2 * 1024 * 1024)}\r\n0\r\n\r\n`,
    );
    expect(chunked).toBe(413);

    const raw = (headerLines: string) =>
      rawBytes(
        server.port,
        `GET /api/configs HTTP/1.1\r\n${headerLines}Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      );
    for (const lines of [
      '',
      'Host: \r\n',
      'Host: a b\r\n',
      'Host: [::1\r\n',
      `Host: ${host}\r\nHost: attacker.example\r\n`,
      'Host: \xff\xfe\r\n',
      `Host: ${host}\r\nOrigin: null\r\n`,
      `Host: ${host}\r\nOrigin: http://[\r\n`,
      `Host: ${host}\r\nOrigin: \xff\r\n`,
      `Host: ${host}\r\nOrigin: ${'a'.repeat(60_000)}\r\n`,
      `Host: ${host}\r\nSec-Fetch-Site: \xff\r\n`,
    ]) {
      const status = await raw(lines);
      expect(status, lines.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(status, lines.slice(0, 40)).toBeLessThan(500);
    }
    expect(await rawBytes(server.port, 'GARBAGE\r\n\r\n')).toBe(400);

    expect((await server.api('/api/configs')).status).toBe(200);
    expect(await liveRuns(server)).toEqual([expect.objectContaining({ id, done: false })]);
    await cancelAndWait(server, id);
  });
});

describe('the web server: API', () => {
  it('checks request bodies and names the bad key', async () => {
    const server = await start();
    const post = (route: string, body: string) =>
      server.api(route, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
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
    expect((await server.api('/api/nothing')).status).toBe(404);
  });

  it('browses a run folder only: no escapes, and a file too large to preview says so', async () => {
    const server = await start();
    const file = (p: string) => server.api(`/api/runs/${PAST}/file?root=log&path=${encodeURIComponent(p)}`);
    const escape = await file('../../../secret.txt');
    expect(escape.status).toBe(403);
    expect(JSON.stringify(await escape.json())).not.toContain('not for the browser');
    expect(
      (await server.api(`/api/runs/${PAST}/download?root=log&path=..%2F..%2F..%2Fsecret.txt`)).status,
    ).toBe(403);
    expect(await (await file('big.txt')).json()).toEqual({
      kind: 'too_large',
      path: 'big.txt',
      size: 600 * 1024,
      limit: 512 * 1024,
    });
    expect((await server.api('/api/runs/..%2F..%2F/file?root=log&path=status.json')).status).toBe(404);
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
    const started = await postJson(server, '/api/runs', {
      question: 'six times seven?',
      config: 'team.yaml',
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    const [first, second] = await Promise.all([watch(server, id), watch(server, id)]);
    const late = await watch(server, id, 5);

    const seqs = (messages: SocketMessage[]) =>
      messages.flatMap((m) => (m.type === 'event' ? [m.event.seq] : []));
    expect(first.at(-1)).toEqual({ type: 'done', runId: id });
    expect(seqs(first)).toEqual(seqs(second));
    expect(new Set(seqs(first)).size).toBe(seqs(first).length);
    expect(seqs(late)).toEqual(seqs(first).filter((s) => s > 5));
    const last = first.at(-2);
    expect(last?.type === 'event' && last.event.type).toBe('run.finished');
    const unknown = await watch(server, 'run99');
    expect(unknown).toEqual([{ type: 'error', message: 'unknown run "run99"' }]);
  });
});
