/** How to reach one MCP server, already resolved from the config (paths expanded, secrets filled in). */
export type McpServerSettings =
  | {
      type: 'stdio';
      command: string;
      args: string[];
      /** Added to the SDK's small safe default set (PATH, HOME…); the rest of our environment is not passed on. */
      env: Record<string, string>;
      cwd?: string;
    }
  | { type: 'streamable-http'; url: string; headers: Record<string, string> };

/** Timing of the MCP provider; every field has a production default. */
export interface McpProviderOptions {
  /** Connect + initialize + tools/list must finish within this (default 30_000). */
  startTimeoutMs?: number;
  /** After a failure, wait this long before one reconnection attempt (default 30_000). */
  retryCooldownMs?: number;
  /** Reconnection attempts per run after failures (default 3); then the server stays off for the run. */
  maxRestarts?: number;
  /** Clock for the cool-down, injectable for tests (default `Date.now`). */
  now?: () => number;
}

/** {@link McpProviderOptions} with the defaults filled in. */
export type ResolvedMcpProviderOptions = Required<McpProviderOptions>;

/** Fills in the defaults of {@link McpProviderOptions}. */
export function resolveMcpProviderOptions(options: McpProviderOptions = {}): ResolvedMcpProviderOptions {
  return {
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    retryCooldownMs: options.retryCooldownMs ?? 30_000,
    maxRestarts: options.maxRestarts ?? 3,
    now: options.now ?? Date.now,
  };
}
