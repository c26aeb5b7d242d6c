import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { MassGenToolsOptions } from './mcp-tools.js';
import { createMassGenMcpServer } from './mcp-server.js';
import type { RunRegistry } from './run-registry.js';

/**
 * Serves the massgen tools over stdio until the client closes stdin (or `stopped` resolves). `output`
 * carries MCP messages only: the caller keeps everything else off it (see `massgen mcp`).
 */
export async function serveMcpOverStdio(
  runs: RunRegistry,
  options: MassGenToolsOptions & { input: Readable; output: Writable; stopped?: Promise<void> },
): Promise<void> {
  const server = createMassGenMcpServer(runs, options);
  const transport = new StdioServerTransport(options.input, options.output);
  const ended = new Promise<void>((resolve) => {
    options.input.once('end', resolve);
    options.input.once('close', resolve);
    transport.onclose = resolve;
    void options.stopped?.then(resolve);
  });
  await server.connect(transport);
  await ended;
  await server.close().catch(() => undefined);
}
