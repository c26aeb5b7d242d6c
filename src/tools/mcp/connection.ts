import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { linkedAbortController, untilAborted } from '../../util/abort.js';
import { describeFailure, isFatalTransportError } from './connection-errors.js';
import type { McpServerSettings } from './settings.js';
import { StderrTail } from './stderr-tail.js';
import { createTransport, type McpTransport } from './transport.js';
import { trackChildProcess } from '../../util/child-reaper.js';
import { massgenVersion } from '../../util/package-json.js';
import { stopChild } from './stop-child.js';

const TERMINATE_SESSION_MS = 1_000;
/**
 * The largest delay `setTimeout` accepts. Passed as the SDK's request timeout so its 60 s default
 * never cuts in: the registry enforces the user's timeout through the call's abort signal.
 */
export const NO_SDK_TIMEOUT_MS = 2_147_483_647;

/** Raised when the start deadline passes; its message is what ends up in the failure event. */
class StartTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`);
    this.name = 'StartTimeoutError';
  }
}

/** One live connection to an MCP server: a client, its transport and (for stdio) the child process. */
export class McpConnection {
  /** The server's tools, in the order it listed them. */
  tools: readonly Tool[] = [];
  /** Why the connection ended, once it has ended without {@link close}. */
  lostReason: string | undefined;
  /** The stdio child's pid (for tests and diagnostics). */
  pid: number | undefined;

  private readonly client = new Client({ name: 'massgen', version: massgenVersion() }, { capabilities: {} });
  private readonly transport: McpTransport;
  private readonly stderr = new StderrTail();
  private ready = false;
  private closing = false;
  private closed: Promise<void> | undefined;
  private childExited = false;
  /** Unregisters the child from the exit-time reaper once it is gone. */
  private untrackChild: (() => void) | null = null;
  private readonly exitWaiters = new Set<() => void>();

  /** `onLost` fires at most once, when a ready connection ends without {@link close}. */
  constructor(
    settings: McpServerSettings,
    private readonly onLost: (reason: string) => void,
  ) {
    this.transport = createTransport(settings);
    if (this.transport instanceof StdioClientTransport) {
      this.stderr.attach(this.transport.stderr as Readable | null);
      this.rememberPid(this.transport);
    }
    // For stdio this fires when the child exits; an HTTP transport only closes when we close it.
    this.client.onclose = () => {
      this.childExited = true;
      this.untrackChild?.();
      this.exitWaiters.forEach((wake) => wake());
      this.lose(this.isStdio() ? 'the process exited' : 'the connection closed');
    };
    this.client.onerror = (error) => {
      if (!this.isStdio() && isFatalTransportError(error)) this.lose(describeFailure(error));
    };
  }

  /**
   * Connects, initializes and lists the tools (following `nextCursor`) within `timeoutMs`. On failure
   * everything is torn down and an Error with a one-line reason (plus stderr tail) is thrown; an abort
   * of `signal` rethrows its reason.
   */
  async open(signal: AbortSignal, timeoutMs: number): Promise<void> {
    const attempt = linkedAbortController(signal);
    const timer = setTimeout(() => attempt.controller.abort(new StartTimeoutError(timeoutMs)), timeoutMs);
    try {
      await untilAborted(this.handshake(attempt.controller.signal, timeoutMs), attempt.controller.signal);
      if (this.lostReason !== undefined) throw new McpError(ErrorCode.ConnectionClosed, this.lostReason);
      this.ready = true;
    } catch (error) {
      const closedUnderUs = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
      const reason =
        closedUnderUs && this.lostReason !== undefined ? this.lostReason : describeFailure(error);
      await this.close();
      if (signal.aborted) throw signal.reason;
      throw new Error(this.withStderr(reason), { cause: error });
    } finally {
      clearTimeout(timer);
      attempt.dispose();
    }
  }

  /** Runs a tool. Never times out on its own: only `signal` ends a slow call. */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    // The SDK never removes its abort listener; a per-call signal keeps them off a long-lived caller signal.
    const { controller, dispose } = linkedAbortController(signal);
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, {
        signal: controller.signal,
        timeout: NO_SDK_TIMEOUT_MS,
      });
      // With the default result schema the SDK never returns the legacy `toolResult` shape.
      return result as CallToolResult;
    } finally {
      dispose();
    }
  }

  /** Marks the connection lost after a request proved it dead (e.g. the HTTP server went away). */
  markLost(error: unknown): void {
    this.lose(describeFailure(error));
  }

  /** Closes the client and makes sure a stdio child is gone. Idempotent; never throws. */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async handshake(signal: AbortSignal, timeoutMs: number): Promise<void> {
    const options = { signal, timeout: timeoutMs };
    await this.client.connect(this.transport, options);
    if (!this.client.getServerCapabilities()?.tools) return;
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? undefined : { cursor }, options);
      tools.push(...page.tools);
      cursor = page.nextCursor || undefined;
      // A server that hands out the same cursor twice would keep us listing forever.
      if (cursor !== undefined && seen.has(cursor)) break;
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
    this.tools = tools;
  }

  private lose(reason: string): void {
    if (this.closing || this.lostReason !== undefined) return;
    this.lostReason = reason;
    if (this.ready) this.onLost(this.withStderr(reason));
  }

  private withStderr(reason: string): string {
    const tail = this.stderr.oneLine();
    return tail ? `${reason} (stderr: ${tail})` : reason;
  }

  private isStdio(): boolean {
    return this.transport instanceof StdioClientTransport;
  }

  private rememberPid(transport: StdioClientTransport): void {
    // The SDK forgets the pid the moment its close() begins (and its connect() closes on failure),
    // so take it at spawn time to be able to kill a child that ignores end of input.
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      this.pid = transport.pid ?? undefined;
      // Killed at process exit, whatever way massgen ends, unless it exited before.
      if (this.pid !== undefined && !this.childExited) this.untrackChild = trackChildProcess(this.pid);
    };
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    const transport = this.transport;
    if (!(transport instanceof StdioClientTransport)) {
      if (this.ready && this.lostReason === undefined) await this.terminateSession(transport);
      await this.client.close().catch(() => undefined);
      return;
    }
    // An abort can land before the spawn event that rememberPid waits for; the transport knows it already.
    this.pid ??= transport.pid ?? undefined;
    // The SDK ends stdin and escalates to signals itself, but only after 2 s per step; we escalate sooner.
    const sdkClose = this.client.close().catch(() => undefined);
    if (this.pid !== undefined && !this.childExited) {
      await stopChild(this.pid, (ms) => this.waitForExit(ms));
    }
    // Once the child is gone the SDK's close settles at once; do not wait for its timers otherwise.
    if (this.childExited) await sdkClose;
  }

  private async terminateSession(transport: StreamableHTTPClientTransport): Promise<void> {
    if (transport.sessionId === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, TERMINATE_SESSION_MS);
    });
    // Frees the session on the server; a server that does not answer must not hold up the run's end.
    await Promise.race([transport.terminateSession().catch(() => undefined), deadline]);
    clearTimeout(timer);
  }

  private waitForExit(ms: number): Promise<boolean> {
    if (this.childExited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.exitWaiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.exitWaiters.delete(wake);
        resolve(false);
      }, ms);
      this.exitWaiters.add(wake);
    });
  }
}
