import type { ToolProvider, ToolProviderStartContext } from '../tool-provider.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { linkedAbortController } from '../../util/abort.js';
import { toToolResult } from './call-result.js';
import { describeFailure, isConnectionLoss } from './connection-errors.js';
import { McpConnection } from './connection.js';
import { resolveMcpProviderOptions, type McpProviderOptions, type McpServerSettings } from './settings.js';
import { toToolSet, type McpToolSet } from './tool-definition.js';

type State =
  | { kind: 'idle' }
  | { kind: 'connecting' }
  | { kind: 'up'; connection: McpConnection; toolSet: McpToolSet }
  | { kind: 'down'; since: number; reason: string }
  | { kind: 'closed' };

/** The current connection, for tests that need the child's pid. Not part of the public API. */
export const connectionOf = new WeakMap<ToolProvider, () => McpConnection | undefined>();

/**
 * A {@link ToolProvider} for one MCP server. Failures never throw out of `start`: they are reported
 * as `mcp.server.failed`, the server offers no tools, and a circuit breaker tries to reconnect after
 * a cool-down, a limited number of times per run.
 */
export function createMcpToolProvider(
  server: string,
  settings: McpServerSettings,
  options?: McpProviderOptions,
): ToolProvider {
  const { startTimeoutMs, retryCooldownMs, maxRestarts, now } = resolveMcpProviderOptions(options);
  const closeController = new AbortController();
  let state: State = { kind: 'idle' };
  let context: ToolProviderStartContext | undefined;
  let restarts = 0;
  let attempt: Promise<void> | undefined;
  /** Teardown of the last lost connection, so close() can wait for it too. */
  let retiring: Promise<void> | undefined;

  const retryInSeconds = (): number | null => (restarts < maxRestarts ? retryCooldownMs / 1000 : null);

  /** `what` completes `MCP server "x" …`, e.g. `stopped: the process exited`. */
  const fail = (what: string, reason: string): void => {
    state = { kind: 'down', since: now(), reason };
    const message = `MCP server "${server}" ${what}: ${reason}`;
    context?.report({ type: 'mcp.server.failed', server, message, retryInSeconds: retryInSeconds() });
  };

  /** A ready connection ended: one report per episode, because only the first loss finds the state up. */
  const onLost = (connection: McpConnection, reason: string): void => {
    if (state.kind !== 'up' || state.connection !== connection) return;
    retiring = connection.close();
    fail('stopped', reason);
  };

  const connect = async (startContext: ToolProviderStartContext): Promise<void> => {
    state = { kind: 'connecting' };
    const started = now();
    const { controller, dispose } = linkedAbortController(startContext.signal, closeController.signal);
    let connection: McpConnection | undefined;
    try {
      // Inside the try: a malformed URL throws here, and start() must never throw.
      const created: McpConnection = new McpConnection(settings, (reason) => onLost(created, reason));
      connection = created;
      await connection.open(controller.signal, startTimeoutMs);
      if (controller.signal.aborted) throw controller.signal.reason;
      const toolSet = toToolSet(server, connection.tools);
      state = { kind: 'up', connection, toolSet };
      startContext.report({
        type: 'mcp.server.ready',
        server,
        tools: toolSet.definitions.map((tool) => tool.name),
        durationMs: Math.max(0, now() - started),
      });
    } catch (error) {
      if (controller.signal.aborted) {
        await connection?.close();
        // Cancelled run or closed provider: nothing to report, and nothing left to retry.
        if (!closeController.signal.aborted) state = { kind: 'down', since: now(), reason: 'cancelled' };
        restarts = maxRestarts;
        return;
      }
      fail('could not start', (error as Error).message);
    } finally {
      dispose();
    }
  };

  const runAttempt = (startContext: ToolProviderStartContext): Promise<void> => {
    const current = connect(startContext).finally(() => {
      if (attempt === current) attempt = undefined;
    });
    attempt = current;
    return current;
  };

  const provider: ToolProvider = {
    name: server,

    async start(startContext) {
      if (state.kind !== 'idle') return;
      context = startContext;
      await runAttempt(startContext);
    },

    tools(): readonly ToolDefinition[] {
      if (state.kind === 'up') return state.toolSet.definitions;
      const cooledDown = state.kind === 'down' && now() - state.since >= retryCooldownMs;
      if (
        cooledDown &&
        context &&
        !context.signal.aborted &&
        attempt === undefined &&
        restarts < maxRestarts
      ) {
        restarts += 1;
        // Tools stay empty until it succeeds; the caller asks again before the next step.
        void runAttempt(context);
      }
      return [];
    },

    async call(name, args, toolContext: ToolContext): Promise<ToolResult> {
      if (state.kind !== 'up') {
        const why = state.kind === 'down' ? `: ${state.reason}` : '';
        throw new Error(`MCP server "${server}" is unavailable${why}`);
      }
      const { connection, toolSet } = state;
      const original = toolSet.originals.get(name);
      if (original === undefined) throw new Error(`MCP server "${server}" has no tool named "${name}"`);
      try {
        return toToolResult(await connection.callTool(original, args, toolContext.signal));
      } catch (error) {
        // The SDK turns an abort into a "request timed out" error; give the registry its own reason back.
        if (toolContext.signal.aborted) throw toolContext.signal.reason;
        if (!isConnectionLoss(error)) throw error;
        if (closeController.signal.aborted) {
          throw new Error(`MCP server "${server}" was closed during the call`, { cause: error });
        }
        connection.markLost(error);
        const why = connection.lostReason ?? describeFailure(error);
        throw new Error(`MCP server "${server}" stopped during the call: ${why}`, { cause: error });
      }
    },

    async close() {
      if (state.kind === 'closed') return;
      const current = state;
      state = { kind: 'closed' };
      closeController.abort(new Error(`MCP server "${server}" closed`));
      await attempt;
      if (current.kind === 'up') await current.connection.close();
      await retiring;
    },
  };
  connectionOf.set(provider, () => (state.kind === 'up' ? state.connection : undefined));
  return provider;
}
