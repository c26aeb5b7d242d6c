import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isLoopbackHost } from '../util/ip-address.js';
import { newToken, sameToken } from '../server/web/auth.js';
import { bearerToken, HostAllowList, requestGuard } from '../server/web/guard.js';
import { ConfigError } from '../types/errors.js';
import { listen } from '../util/listen.js';
import type { MassGenToolsOptions } from './mcp-tools.js';
import { createMassGenMcpServer } from './mcp-server.js';
import type { RunRegistry } from './run-registry.js';

/** Options of {@link startMcpHttpServer}. */
export interface McpHttpOptions extends MassGenToolsOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** The token every request must carry as `Authorization: Bearer TOKEN` (default: one is generated). */
  token?: string;
  /** `false` (`--no-auth`): no token, on loopback only. */
  auth?: boolean;
  /** `Host` names answered beside the loopback names and the bound address (`--allowed-host`). */
  allowedHosts?: readonly string[];
}

/** A running `massgen mcp --http`. */
export interface McpHttpServer {
  /** The MCP endpoint, `http://HOST:PORT/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly token: string | null;
  close(): Promise<void>;
}

/** MCP messages are small; a larger body is refused before it is read. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A refusal in JSON-RPC's error shape, which MCP clients show as it is. */
const refuse = (c: Context, status: number, message: string) =>
  c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, status as ContentfulStatusCode);

/**
 * The massgen tools over MCP's Streamable HTTP transport at `/mcp`, stateless: each request gets its
 * own server over the one {@link RunRegistry}, so a client that disconnects and reconnects (a new
 * session, or none) finds its runs by id. Guarded like the other massgen servers (`guard.ts`): the
 * `Host` allow-list, no foreign `Origin` or `Sec-Fetch-Site`, JSON bodies only, and a bearer token —
 * generated unless given, and only `auth: false` on loopback goes without.
 *
 * @throws {ConfigError} for an empty token, `auth: false` beyond loopback, or a bad allowed host.
 */
export async function startMcpHttpServer(runs: RunRegistry, options: McpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.token !== undefined && options.token.trim() === '')
    throw new ConfigError('the token is empty', {
      hint: 'give --token TOKEN, or leave it out to have one generated',
    });
  if (options.auth === false && !isLoopbackHost(host))
    throw new ConfigError(`--no-auth is refused on ${host}: anyone who can reach it could run your agents`, {
      hint: 'drop --no-auth (a token is generated, or pass --token TOKEN), or listen on 127.0.0.1',
    });
  const token = options.auth === false ? null : (options.token ?? newToken());
  const hosts = new HostAllowList(host, options.allowedHosts ?? []);
  const app = new Hono();
  app.use('*', secureHeaders({ strictTransportSecurity: false, xFrameOptions: 'DENY' }));
  app.use(
    '*',
    requestGuard({
      hosts,
      server: 'massgen mcp',
      strictSite: () => true,
      refuse: (c, refusal) => refuse(c, refusal.status, refusal.message),
    }),
  );
  app.use('*', async (c, next) => {
    if (token && !sameToken(bearerToken(c.req.header('authorization')), token))
      return refuse(
        c,
        401,
        'missing or incorrect token: send the token massgen mcp printed (or was given) as "Authorization: Bearer TOKEN"',
      );
    await next();
  });
  app.all(
    '/mcp',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => refuse(c, 413, 'the request body is larger than 4 MiB'),
    }),
    async (c) => {
      const server = createMassGenMcpServer(runs, options);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      return transport.handleRequest(c.req.raw);
    },
  );
  app.notFound((c) => refuse(c, 404, 'the MCP endpoint is /mcp'));

  const listening = await listen(app.fetch, host, options.port);
  hosts.port = listening.port;
  return {
    url: `${listening.origin}/mcp`,
    port: listening.port,
    token,
    close: () => listening.close(),
  };
}
