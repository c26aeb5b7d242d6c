import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

/** A web-standard handler listening on a port, as every massgen server runs one. */
export interface Listening {
  readonly server: ServerType;
  readonly port: number;
  /** `http://host:port` (IPv6 hosts in brackets). */
  readonly origin: string;
  /** Stops listening and drops open connections (streams, keep-alive). */
  close(): Promise<void>;
}

/** Serves `fetch` on `host:port` with `@hono/node-server`; rejects with the listen error (e.g. EADDRINUSE). */
export async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<Listening> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const started = serve({ fetch, hostname: host, port }, () => resolve(started));
    started.once('error', reject);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: async () => {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closing;
    },
  };
}
