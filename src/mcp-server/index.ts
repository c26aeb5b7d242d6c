/**
 * massgen as an MCP server (`massgen mcp`): coding agents (Claude Code, Codex, Cursor, Gemini CLI…)
 * start team runs in the background, watch them and read their results. One more view over runs; it
 * loads the MCP SDK, so only `massgen mcp` imports this folder.
 */
export { RunRegistry, UnknownRunError, type RunRegistryOptions, type RunRequest } from './run-registry.js';
export { TrackedRun, type TrackedPhase, type Milestone } from './tracked-run.js';
export { runStatus, runResult, runLine } from './run-summary.js';
export { registerMassGenTools, toolInputs, type MassGenToolsOptions } from './mcp-tools.js';
export { createMassGenMcpServer, SERVER_INSTRUCTIONS } from './mcp-server.js';
export { serveMcpOverStdio } from './mcp-stdio.js';
export { startMcpHttpServer, type McpHttpOptions, type McpHttpServer } from './mcp-http.js';
