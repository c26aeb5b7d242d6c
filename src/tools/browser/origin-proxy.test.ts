/**
 * The filter proxy on its own, over real sockets: what it forwards, what it refuses before connecting,
 * and the request lines that try to name an allowed host while reaching another.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authority, startOriginProxy, type OriginProxy } from './origin-proxy.js';

/** A server that answers with the Host header and path it got, counting connections. */
async function echoServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const server = http.createServer((req, res) => res.end(`host=${req.headers.host} path=${req.url}`));
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Sends `raw` to the proxy; resolves with everything it answers until it ends the connection. */
function ask(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let got = '';
    socket.on('data', (chunk) => {
      got += chunk.toString('latin1');
      // A tunnel stays open: its answer is complete at the blank line, and one response inside it.
      if (/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200[\s\S]*\r\n\r\n[\s\S]+/.test(got)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('end', () => resolve(got));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('the origin proxy', () => {
  let allowed: Awaited<ReturnType<typeof echoServer>>;
  let refused: Awaited<ReturnType<typeof echoServer>>;
  let proxy: OriginProxy;
  let proxyPort: number;
  const refusals: string[] = [];
  beforeAll(async () => {
    [allowed, refused] = await Promise.all([echoServer(), echoServer()]);
    proxy = await startOriginProxy([`http://127.0.0.1:${allowed.port}`], (what) => refusals.push(what));
    proxyPort = Number(new URL(proxy.url).port);
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([allowed?.close(), refused?.close()]);
    // Whatever each test tried, the refused server saw no connection at all.
    expect(refused.connections()).toBe(0);
  });

  it('listens on loopback and forwards a request to an allowed origin, to the host in its URL', async () => {
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The Host header names the refused server: the request still goes where its URL says.
    const answer = await ask(
      proxyPort,
      `GET http://127.0.0.1:${allowed.port}/page?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${refused.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain(`host=127.0.0.1:${allowed.port} path=/page?q=1`);
  });

  it('refuses a request to another origin before connecting, and says so', async () => {
    const before = refusals.length;
    for (const url of [
      `http://127.0.0.1:${refused.port}/`,
      `http://127.0.0.1:${allowed.port}@127.0.0.1:${refused.port}/`,
      `http://localhost:${refused.port}/`,
      `https://127.0.0.1:${allowed.port}/`,
      `ftp://127.0.0.1:${allowed.port}/`,
      '/relative',
    ]) {
      const answer = await ask(proxyPort, `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer, url).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer, url).toContain('is not in allowed_origins');
    }
    expect(refusals.slice(before)).toContain(`http://127.0.0.1:${refused.port}`);
  });

  it('tunnels to an allowed endpoint (https, wss and ws go this way)', async () => {
    const answer = await ask(
      proxyPort,
      `CONNECT 127.0.0.1:${allowed.port} HTTP/1.1\r\nHost: 127.0.0.1:${allowed.port}\r\n\r\n` +
        `GET /inside HTTP/1.1\r\nHost: 127.0.0.1:${allowed.port}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 /);
    expect(answer).toContain('path=/inside');
  });

  it('refuses a tunnel to anything else, however the endpoint is spelled', async () => {
    const before = refusals.length;
    for (const target of [
      `127.0.0.1:${refused.port}`,
      `127.0.0.1:${allowed.port}@127.0.0.1:${refused.port}`,
      `u@127.0.0.1:${refused.port}`,
      `127.0.0.1:${refused.port}/x`,
      `127.0.0.1:${refused.port}#:${allowed.port}`,
      `localhost:${allowed.port}`,
      `[::1]:${allowed.port}`,
      `0x7f.0.0.1:${refused.port}`,
      `127.0.0.1`,
      `127.0.0.1:${allowed.port + 65_536}`,
    ]) {
      const answer = await ask(proxyPort, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      // 400: Node's parser refuses the line itself.
      expect(answer, target).toMatch(/^HTTP\/1\.1 40[03] /);
    }
    expect(refusals.slice(before)).toContain(`127.0.0.1:${refused.port}`);
  });

  it('refuses a plain WebSocket upgrade (Chromium tunnels those)', async () => {
    const answer = await ask(
      proxyPort,
      `GET http://127.0.0.1:${allowed.port}/ HTTP/1.1\r\nHost: 127.0.0.1:${allowed.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 501 /);
  });

  it('survives a client that resets its connection after any answer (a crash here ended the whole run)', async () => {
    // A page (or Chromium itself, giving up on a refused https upgrade) may reset a socket the
    // proxy has already answered; once Node hands a CONNECT or upgrade socket over, nothing else
    // listens for its errors. Caught here: an uncaught `read ECONNRESET` ended massgen.
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      for (const raw of [
        `CONNECT 127.0.0.1:${refused.port} HTTP/1.1\r\nHost: 127.0.0.1:${refused.port}\r\n\r\n`,
        `GET http://127.0.0.1:${allowed.port}/ HTTP/1.1\r\nHost: 127.0.0.1:${allowed.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
        `GET http://127.0.0.1:${refused.port}/ HTTP/1.1\r\nHost: 127.0.0.1:${refused.port}\r\n\r\n`,
      ]) {
        await new Promise<void>((resolve, reject) => {
          const socket = net.connect(proxyPort, '127.0.0.1', () => socket.write(raw));
          socket.once('data', () => {
            socket.resetAndDestroy();
            resolve();
          });
          socket.on('error', reject);
        });
      }
      // The proxy still answers, and no error went unhandled meanwhile.
      expect(
        await ask(
          proxyPort,
          `GET http://127.0.0.1:${allowed.port}/ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ),
      ).toContain('path=/ok');
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught.map(String)).toEqual([]);
  });

  it('reads an endpoint as a URL writes its host', () => {
    expect(authority('Example.COM:443')).toEqual({ host: 'example.com', port: 443 });
    expect(authority('0x7f.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(authority('[::1]:80')).toEqual({ host: '[::1]', port: 80 });
    expect(authority('a.test:0')).toBeNull();
    expect(authority('a.test')).toBeNull();
    expect(authority('a b:80')).toBeNull();
  });
});

describe('closing the proxy', () => {
  it('cuts an open tunnel and stops listening', async () => {
    const target = await echoServer();
    const proxy = await startOriginProxy([`http://127.0.0.1:${target.port}`], () => {});
    const port = Number(new URL(proxy.url).port);
    const socket = net.connect(port, '127.0.0.1');
    const established = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\n\r\n`);
    await established;
    await proxy.close();
    await closed;
    const refused = await new Promise<string>((resolve) => {
      const again = net.connect(port, '127.0.0.1');
      again.on('connect', () => resolve('connected'));
      again.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    await target.close();
  });
});
