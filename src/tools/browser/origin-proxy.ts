import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { defaultPort, endpointAllowed, originAllowed } from './origins.js';

/** A running filter proxy: Chromium's `--proxy-server`. */
export interface OriginProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops listening and cuts every connection and tunnel. */
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request: never passed on either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The `allowed_origins` check where every request of the browser passes: an HTTP proxy on 127.0.0.1
 * (Chromium is started with it for everything, loopback included). Playwright's routing sees neither
 * redirect hops nor WebSockets nor every worker's requests; a proxy sees each connection. A plain
 * request (`GET http://host/…`, each redirect hop is one) is checked by its origin, a tunnel
 * (`CONNECT host:port`: https, wss, ws) by its endpoint — before anything is connected, and the
 * connection goes to exactly the host that was checked (the one the page asked for).
 * `onRefused` hears what was refused (an origin, or `host:port` for a tunnel).
 */
export async function startOriginProxy(
  allowed: readonly string[],
  onRefused: (what: string) => void,
): Promise<OriginProxy> {
  const agent = new http.Agent({ keepAlive: true });
  const tunnels = new Set<net.Socket>();
  const server = http.createServer();

  server.on('request', (req, res) => {
    const target = absoluteUrl(req.url);
    if (target === null || target.protocol !== 'http:' || !originAllowed(target.href, allowed)) {
      const what = target?.origin ?? String(req.url);
      onRefused(what);
      // Chromium shows a proxy's answer to a plain request as the page: say what happened.
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`massgen refused this request: ${what} is not in allowed_origins.\n`);
      return;
    }
    const headers: Record<string, string | string[]> = { host: target.host };
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && name !== 'host' && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const upstream = http.request(
      {
        host: bareHost(target.hostname),
        port: defaultPort(target),
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
        answer.pipe(res);
      },
    );
    res.on('close', () => upstream.destroy());
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`massgen's proxy could not reach ${target.origin}: ${error.code ?? error.message}\n`);
    });
    req.pipe(upstream);
  });

  // Chromium tunnels WebSockets (ws: too) with CONNECT; a plain upgrade request is not expected.
  // Node stops listening for a socket's errors once it hands it to 'upgrade' or 'connect': a reset
  // from the browser after that would be an uncaught exception that ends the whole run.
  server.on('upgrade', (_req, socket: net.Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 501 Not Implemented\r\nConnection: close\r\n\r\n');
  });

  server.on('connect', (req, client: net.Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    const endpoint = authority(req.url ?? '');
    if (endpoint === null || !endpointAllowed(endpoint.host, endpoint.port, allowed)) {
      onRefused(req.url ?? '');
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const tunnel = net.connect({ host: bareHost(endpoint.host), port: endpoint.port });
    let open = false;
    for (const socket of [client, tunnel]) {
      tunnels.add(socket);
      socket.once('close', () => tunnels.delete(socket));
    }
    tunnel.once('connect', () => {
      open = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) tunnel.write(head);
      tunnel.pipe(client);
      client.pipe(tunnel);
    });
    tunnel.on('error', () => {
      if (open) client.destroy();
      else client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    client.on('error', () => tunnel.destroy());
    client.on('close', () => tunnel.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of tunnels) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}

/** A proxy request's absolute URL (`http://host/path`), or null for anything else. */
function absoluteUrl(raw: string | undefined): URL | null {
  if (raw === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * `host:port` of a CONNECT, with the host in the form a URL gives it (what allowed origins are compared
 * in), or null when it is anything more (user info, a path) or has no port.
 */
export function authority(raw: string): { host: string; port: number } | null {
  const match = /^([^\s/?#@\\]+):(\d{1,5})$/.exec(raw);
  if (match === null) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  try {
    return { host: new URL(`http://${match[1]}`).hostname, port };
  } catch {
    return null;
  }
}

/** A URL's hostname as a socket takes it (IPv6 without brackets). */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

/** Raw headers (name, value, name, value…) without the hop-by-hop ones. */
function endToEnd(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
