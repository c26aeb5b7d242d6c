import type { ChatMessage, ToolCall } from '../types/messages.js';
import { mediaRef, type MediaPart } from '../types/media.js';
import type { Phase } from '../types/events.js';
import type { DecisionSource, PermissionRuleRef } from '../types/permission-events.js';
import type { ToolApprovalDecision, ToolApprover, ToolPolicy, ToolRegistry } from '../types/tool.js';
import { describeError } from '../types/errors.js';
import type { RunContext } from './run-context.js';
import { enforcement } from './prompts.js';

/**
 * Executes ordinary (non-workflow) tool calls through the agent's registry, one after another, and
 * returns the tool messages to append. Tool failures become tool-error results, never exceptions.
 */
export async function executeToolCalls(
  ctx: RunContext,
  agentId: string,
  phase: Phase,
  registry: ToolRegistry,
  offered: ReadonlySet<string>,
  calls: readonly ToolCall[],
  signal: AbortSignal,
): Promise<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  for (const call of calls) {
    if (signal.aborted) throw signal.reason;
    ctx.emit({
      type: 'tool.call.started',
      agentId,
      phase,
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
    });
    const started = ctx.clock.now();
    let content: string;
    let isError = false;
    let deferred = false;
    let media: readonly MediaPart[] = [];
    let costUsd = 0;
    let peerCosts: Readonly<Record<string, number>> = {};
    if (!offered.has(call.name)) {
      content = enforcement.unknownTool(call.name);
      isError = true;
    } else if (phase === 'coordination' && ctx.planning && !ctx.planning.mayRun(agentId, call.name)) {
      content = enforcement.deferredCall(call.name);
      deferred = true;
    } else {
      const denial = ctx.toolPolicy
        ? await decideCall(ctx, ctx.toolPolicy, registry, agentId, phase, call, signal)
        : await askApproval(ctx, agentId, phase, call, signal);
      if (denial !== null) {
        content = denial;
        isError = true;
      } else {
        try {
          const result = await registry.execute(call, { agentId, phase, signal });
          content = result.content;
          isError = result.isError ?? false;
          media = result.media ?? [];
          costUsd = result.costUsd ?? 0;
          peerCosts = result.peerCosts ?? {};
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          content = `Tool ${call.name} failed: ${describeError(error)}`;
          isError = true;
        }
      }
    }
    // A tool may echo a secret (an env dump, a config file): the model must never read it.
    content = ctx.scrub(content);
    if (costUsd > 0) ctx.addToolCost(agentId, costUsd);
    for (const [peer, dollars] of Object.entries(peerCosts)) if (dollars > 0) ctx.addToolCost(peer, dollars);
    const seen = ctx.mediaFor(agentId, media);
    if (seen.note) content += `\n\n${seen.note}`;
    ctx.emit({
      type: 'tool.call.finished',
      agentId,
      phase,
      callId: call.id,
      toolName: call.name,
      result: content,
      isError,
      durationMs: Math.max(0, ctx.clock.now() - started),
      ...(media.length > 0 ? { media: media.map(mediaRef) } : {}),
      ...(costUsd > 0 ? { costUsd } : {}),
      ...(deferred ? { deferred } : {}),
    });
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content,
      isError,
      ...(seen.parts.length > 0 ? { media: seen.parts } : {}),
    });
  }
  return messages;
}

/**
 * Holds the call for approval when an approver is configured. Returns null when the call may run,
 * else the tool-error text for the model.
 */
async function askApproval(
  ctx: RunContext,
  agentId: string,
  phase: Phase,
  call: ToolCall,
  signal: AbortSignal,
): Promise<string | null> {
  if (!ctx.approver) return null;
  const decision = await holdForApproval(ctx, ctx.approver, agentId, phase, call, signal);
  return decision.approved ? null : enforcement.deniedCall(call.name, decision.reason);
}

/** Emits `tool.approval.requested`, waits for the approver, emits `tool.approval.resolved`. */
async function holdForApproval(
  ctx: RunContext,
  approver: ToolApprover,
  agentId: string,
  phase: Phase,
  call: ToolCall,
  signal: AbortSignal,
  rule?: PermissionRuleRef,
): Promise<ToolApprovalDecision> {
  const request = {
    agentId,
    phase,
    callId: call.id,
    toolName: call.name,
    arguments: call.arguments,
    ...(rule ? { rule } : {}),
  };
  ctx.emit({ type: 'tool.approval.requested', ...request });
  const decision = await approver(request, signal);
  if (signal.aborted) throw signal.reason;
  ctx.emit({
    type: 'tool.approval.resolved',
    agentId,
    callId: call.id,
    toolName: call.name,
    approved: decision.approved,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.by === undefined ? {} : { by: decision.by }),
  });
  return decision;
}

/** Why a held call is denied when the run has no approver at all. */
const NOBODY_TO_ASK = 'a permission rule asks for approval, but nobody can answer in this run';

/**
 * The permission engine's order (docs/permissions.md): the fixed checks (the command deny-list, the
 * path checks) first, then the permission rules — `allow` runs, `deny` refuses naming the rule, `ask`
 * holds the call for the approver — and for a call no rule matched the run's usual behaviour. Every
 * decision is emitted as `tool.permission.decided`. Returns null when the call may run, else the
 * tool-error text for the model.
 */
async function decideCall(
  ctx: RunContext,
  policy: ToolPolicy,
  registry: ToolRegistry,
  agentId: string,
  phase: Phase,
  call: ToolCall,
  signal: AbortSignal,
): Promise<string | null> {
  const decided = (
    decision: 'allow' | 'deny',
    by: DecisionSource,
    extra: { rule?: PermissionRuleRef; reason?: string } = {},
  ) =>
    ctx.emit({
      type: 'tool.permission.decided',
      agentId,
      phase,
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
      decision,
      by,
      ...extra,
    });
  const refusal = await registry.precheck?.(call, { agentId, phase, signal });
  if (signal.aborted) throw signal.reason;
  if (refusal) {
    decided('deny', 'guard', { reason: refusal });
    return refusal;
  }
  const verdict = await policy.evaluate({ agentId, phase, toolName: call.name, arguments: call.arguments });
  if (signal.aborted) throw signal.reason;
  if (verdict?.decision === 'allow') {
    decided('allow', 'rule', { rule: verdict.rule });
    return null;
  }
  if (verdict?.decision === 'deny') {
    decided('deny', 'rule', { rule: verdict.rule, reason: verdict.message });
    return verdict.message;
  }
  if (verdict === null && policy.unmatched === 'allow') {
    decided('allow', 'default');
    return null;
  }
  const rule = verdict?.rule;
  if (!ctx.approver) {
    decided('deny', 'none', { ...(rule ? { rule } : {}), reason: NOBODY_TO_ASK });
    return enforcement.deniedCall(call.name, NOBODY_TO_ASK);
  }
  const decision = await holdForApproval(ctx, ctx.approver, agentId, phase, call, signal, rule);
  decided(decision.approved ? 'allow' : 'deny', decision.by ?? 'caller', {
    ...(rule ? { rule } : {}),
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  });
  return decision.approved ? null : enforcement.deniedCall(call.name, decision.reason);
}

/** A registry with no tools: the default until tools are configured. */
export const noTools: ToolRegistry = {
  list: () => [],
  execute: async (call) => ({ content: enforcement.unknownTool(call.name), isError: true }),
};
