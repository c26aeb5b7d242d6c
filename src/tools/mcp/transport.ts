import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerSettings } from './settings.js';

/** Either transport the SDK offers for our two server types. */
export type McpTransport = StdioClientTransport | StreamableHTTPClientTransport;

/**
 * Builds the SDK transport for `settings`. stdio servers get the SDK's small default environment
 * plus `settings.env` only, so API keys in our own environment never reach third-party servers, and
 * their stderr is piped to us instead of the user's terminal.
 */
export function createTransport(settings: McpServerSettings): McpTransport {
  if (settings.type === 'stdio') {
    return new StdioClientTransport({
      command: settings.command,
      args: settings.args,
      // The SDK merges this over getDefaultEnvironment(); passing our whole environment would leak secrets.
      env: settings.env,
      ...(settings.cwd !== undefined ? { cwd: settings.cwd } : {}),
      stderr: 'pipe',
    });
  }
  return new StreamableHTTPClientTransport(parseUrl(settings.url), {
    requestInit: { headers: settings.headers },
  });
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    // Node's own message is just "Invalid URL", which does not say which one.
    throw new Error(`invalid URL "${url}"`);
  }
}
