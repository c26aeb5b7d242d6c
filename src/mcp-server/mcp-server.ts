import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { massgenVersion } from '../app/essentials.js';
import { registerMassGenTools, type MassGenToolsOptions } from './mcp-tools.js';
import type { RunRegistry } from './run-registry.js';

/** What a client is told about the server at initialization (shown to the model by most clients). */
export const SERVER_INSTRUCTIONS = `massgen runs a team of AI agents on one question: they answer in parallel, read each other's answers, vote, and the most-voted answer's author writes the final answer.
Use it for hard questions where independent attempts and review pay off (design decisions, tricky bugs, research, writing that must be right); not for quick lookups.
Flow: run (returns run_id at once) → result with timeout_seconds (call again while done is false) → read final_answer, winner and deliverables. status shows answers and votes so far; cancel stops a run.
Pick a config with list_examples (or your own YAML file; validate_config checks it). Put your evaluation criteria in the question.`;

/** A massgen MCP server over `runs` (one per stdio process, or one per HTTP request). */
export function createMassGenMcpServer(runs: RunRegistry, options: MassGenToolsOptions): McpServer {
  const server = new McpServer(
    { name: 'massgen', version: massgenVersion() },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  registerMassGenTools(server, runs, options);
  return server;
}
