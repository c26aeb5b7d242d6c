import { z } from 'zod';
import { agentBase, PhaseSchema } from './event-base.js';
import { MediaRefSchema } from './media.js';
import { DecisionSourceSchema, PermissionRuleRefSchema } from './permission-events.js';

/**
 * Tool calls in the run event stream (docs/events.md): a call and its result, approvals, and the MCP
 * servers' health. Joined into `RunEventSchema` in events.ts.
 */

export const ToolCallStartedSchema = z.object({
  ...agentBase,
  type: z.literal('tool.call.started'),
  phase: PhaseSchema,
  callId: z.string(),
  toolName: z.string(),
  arguments: z.unknown(),
  /** True for built-in tools the provider runs itself (web search, code execution). */
  providerExecuted: z.boolean().optional(),
});

export const ToolCallFinishedSchema = z.object({
  ...agentBase,
  type: z.literal('tool.call.finished'),
  phase: PhaseSchema,
  callId: z.string(),
  toolName: z.string(),
  result: z.string(),
  isError: z.boolean(),
  durationMs: z.number().nonnegative(),
  providerExecuted: z.boolean().optional(),
  /** Media the tool returned for the model to see, or files it made (by path and hash). */
  media: z.array(MediaRefSchema).optional(),
  /** Dollars the call spent at a provider (media generation); counted in the agent's cost. */
  costUsd: z.number().nonnegative().optional(),
  /** Planning mode: the call was recorded as part of the agent's plan, not executed. */
  deferred: z.boolean().optional(),
});

export const ToolApprovalRequestedSchema = z.object({
  ...agentBase,
  type: z.literal('tool.approval.requested'),
  phase: PhaseSchema,
  callId: z.string(),
  toolName: z.string(),
  arguments: z.unknown(),
  /** The `ask` permission rule that holds the call; absent when `auto_approve: false` holds every call. */
  rule: PermissionRuleRefSchema.optional(),
});

export const ToolApprovalResolvedSchema = z.object({
  ...agentBase,
  type: z.literal('tool.approval.resolved'),
  callId: z.string(),
  toolName: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  /** Who answered (docs/permissions.md). */
  by: DecisionSourceSchema.optional(),
});

export const McpServerReadySchema = z.object({
  ...agentBase,
  type: z.literal('mcp.server.ready'),
  server: z.string(),
  /** The tool names as the model sees them (`mcp__<server>__<tool>`), after filtering. */
  tools: z.array(z.string()),
  durationMs: z.number().nonnegative(),
});

export const McpServerFailedSchema = z.object({
  ...agentBase,
  type: z.literal('mcp.server.failed'),
  server: z.string(),
  message: z.string(),
  /** Seconds until a reconnection is tried, or null when there will be no retry in this run. */
  retryInSeconds: z.number().nonnegative().nullable(),
});
