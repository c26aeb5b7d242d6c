import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

function causeText(error: Error): string | undefined {
  const cause: unknown = error.cause;
  if (cause instanceof Error) return cause.message;
  if (typeof cause === 'object' && cause !== null && 'code' in cause) return String(cause.code);
  return undefined;
}

/** A short human reason for a connection or request failure, without the SDK's error-code prefixes. */
export function describeFailure(error: unknown): string {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) return 'the connection closed';
    return error.message.replace(/^MCP error -?\d+: /, '');
  }
  if (error instanceof StreamableHTTPError) {
    const text = error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '');
    return error.code !== undefined && error.code > 0 ? `HTTP ${error.code}: ${text}` : text;
  }
  if (error instanceof Error) {
    const cause = causeText(error);
    // undici reports every network failure as "fetch failed"; the useful part is in `cause`.
    return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
  }
  return String(error);
}

/**
 * True when a failed request means the connection itself is gone (process exited, HTTP server
 * unreachable or session lost), as opposed to the server answering with an error.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError) return true;
  if (!(error instanceof Error)) return false;
  // "Not connected" is what the SDK throws once the transport is gone.
  return isFetchFailure(error) || error.message === 'Not connected';
}

/** undici's network failures: a TypeError "fetch failed" (refused, reset…) or "terminated" (body cut). */
function isFetchFailure(error: Error): boolean {
  return error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated');
}

/**
 * True for transport errors that end an HTTP connection. Most SDK `onerror` reports are recoverable
 * (a dropped SSE stream it reconnects itself, a stray message), so only these mark the server down.
 */
export function isFatalTransportError(error: Error): boolean {
  return isFetchFailure(error) || /^Maximum reconnection attempts/.test(error.message);
}
