import { randomBytes } from 'node:crypto';
import type { ToolDefinition } from '../../types/messages.js';

/** What a harness gets back for a call of one of massgen's tools. */
export interface BridgeResult {
  text: string;
  isError?: boolean;
}

/** massgen's tools served to a coding-agent harness as an MCP server on loopback. */
export interface ToolBridge {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** Sent by the harness with every request (a per-bridge bearer token). */
  readonly headers: Readonly<Record<string, string>>;
  /** The tools offered from now on (each harness turn lists them afresh). */
  setTools(tools: readonly ToolDefinition[]): void;
  close(): Promise<void>;
}

/** The name harnesses know massgen's MCP server by (`mcp__massgen__vote` in Claude Code). */
export const BRIDGE_SERVER_NAME = 'massgen';

/**
 * Serves massgen's tools — the workflow tools and the config's custom tools — to a harness over MCP
 * (Streamable HTTP, stateless, JSON responses) on 127.0.0.1, behind a random bearer token. A call is
 * handed to `onCall`, whose promise may stay pending as long as massgen needs: the harness waits, as for
 * any slow tool.
 */
export async function startToolBridge(
  onCall: (name: string, args: Record<string, unknown>) => Promise<BridgeResult>,
): Promise<ToolBridge> {
  const [
    { Server },
    { WebStandardStreamableHTTPServerTransport },
    { ListToolsRequestSchema, CallToolRequestSchema },
    { listen },
  ] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('../../util/listen.js'),
  ]);
  const token = randomBytes(24).toString('hex');
  let tools: readonly ToolDefinition[] = [];
  const handle = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    if (request.headers.get('authorization') !== `Bearer ${token}`)
      return new Response('unauthorized', { status: 401 });
    // Stateless: one server and transport per request, as the SDK wants for sessionless servers.
    const server = new Server({ name: BRIDGE_SERVER_NAME, version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: { type: 'object' as const, ...t.parameters },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const result = await onCall(call.params.name, call.params.arguments ?? {});
      return { content: [{ type: 'text' as const, text: result.text }], isError: result.isError ?? false };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  const listening = await listen(handle, '127.0.0.1', 0);
  // A call massgen holds open may last as long as a whole step: no request timeout on this server.
  listening.server.setTimeout?.(0);
  (listening.server as { requestTimeout?: number }).requestTimeout = 0;
  return {
    url: `${listening.origin}/mcp`,
    headers: { authorization: `Bearer ${token}` },
    setTools: (next) => {
      tools = next;
    },
    close: () => listening.close(),
  };
}
