import type { ChatMessage, ToolCall } from '../types/messages.js';
import { mediaRef, type MediaPart } from '../types/media.js';
import type { Phase } from '../types/events.js';
import type { DecisionSource, PermissionRuleRef } from '../types/permission-events.js';
import type {
  PreToolHookOutcome,
  ToolApprovalDecision,
  ToolApprover,
  ToolPolicy,
  ToolRegistry,
} from '../types/tool.js';
import { describeError } from '../types/errors.js';
import type { RunContext } from './run-context.js';
import { enforcement } from './prompts.js';

/** Where tool calls are made: one agent's registry in one phase, under its turn's signal. */
export interface CallSite {
  agentId: string;
  phase: Phase;
  registry: ToolRegistry;
  signal: AbortSignal;
  /** The tools the model was offered: a call to any other is answered as unknown. */
  offered: ReadonlySet<string>;
}

/**
 * Executes ordinary (non-workflow) tool calls through the agent's registry, one after another, and
 * returns the tool messages to append. Tool failures become tool-error results, never exceptions.
 */
export async function executeToolCalls(
  ctx: RunContext,
  site: CallSite,
  calls: readonly ToolCall[],
): Promise<ChatMessage[]> {
  const { agentId, phase, registry, offered, signal } = site;
  const messages: ChatMessage[] = [];
  for (const asked of calls) {
    if (signal.aborted) throw signal.reason;
    let call = asked;
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
      const hooked = ctx.toolHooks ? await preToolHooks(ctx, site, call) : null;
      if (hooked?.updatedInput) call = { ...call, arguments: hooked.updatedInput };
      const denial =
        ctx.toolPolicy || hooked?.decision || hooked?.updatedInput
          ? await decideCall(ctx, ctx.toolPolicy, site, call, hooked)
          : await askApproval(ctx, site, call);
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
        if (ctx.toolHooks) {
          const after = await ctx.toolHooks.postToolUse(
            { ...hookRequest(ctx, agentId, phase, call), result: ctx.scrub(content), isError },
            signal,
          );
          if (signal.aborted) throw signal.reason;
          warnHooks(ctx, after.warnings);
          if (after.additionalContext) content += `\n\n${enforcement.hookContext(after.additionalContext)}`;
        }
      }
      if (hooked?.additionalContext) content += `\n\n${enforcement.hookContext(hooked.additionalContext)}`;
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
async function askApproval(ctx: RunContext, site: CallSite, call: ToolCall): Promise<string | null> {
  if (!ctx.approver) return null;
  const decision = await holdForApproval(ctx, site, call, { approver: ctx.approver });
  return decision.approved ? null : enforcement.deniedCall(call.name, decision.reason);
}

/** Emits `tool.approval.requested`, waits for the approver, emits `tool.approval.resolved`. */
async function holdForApproval(
  ctx: RunContext,
  site: CallSite,
  call: ToolCall,
  { approver, rule }: { approver: ToolApprover; rule?: PermissionRuleRef | undefined },
): Promise<ToolApprovalDecision> {
  const { agentId, phase, signal } = site;
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
const NOBODY_TO_ASK_HOOK = "the user's hook asks for approval, but nobody can answer in this run";

const hookRequest = (ctx: RunContext, agentId: string, phase: Phase, call: ToolCall) => ({
  runId: ctx.runId,
  agentId,
  phase,
  callId: call.id,
  toolName: call.name,
  arguments: call.arguments,
});

/** Each hook that failed is a warning of the run; the call goes on as if it had not been there. */
function warnHooks(ctx: RunContext, warnings: readonly string[]): void {
  for (const message of warnings)
    ctx.emit({ type: 'run.warning', code: 'hook_failed', message, key: 'hooks' });
}

async function preToolHooks(ctx: RunContext, site: CallSite, call: ToolCall): Promise<PreToolHookOutcome> {
  const { agentId, phase, signal } = site;
  const outcome = await ctx.toolHooks!.preToolUse(hookRequest(ctx, agentId, phase, call), signal);
  if (signal.aborted) throw signal.reason;
  warnHooks(ctx, outcome.warnings);
  return outcome;
}

/**
 * The permission engine's order (docs/permissions.md, docs/hooks.md): a PreToolUse hook's `deny`
 * first, then the fixed checks (the command deny-list, the path checks), then the permission rules —
 * `deny` refuses naming the rule; a hook's `allow` runs the call, a hook's `ask` holds it; a rule's
 * `allow` runs, its `ask` holds the call for the approver — and for a call nothing decided the run's
 * usual behaviour. Every decision is emitted as `tool.permission.decided`. Returns null when the call
 * may run, else the tool-error text for the model.
 */
async function decideCall(
  ctx: RunContext,
  policy: ToolPolicy | undefined,
  site: CallSite,
  call: ToolCall,
  hooked: PreToolHookOutcome | null,
): Promise<string | null> {
  const { agentId, phase, registry, signal } = site;
  // A hook that rewrote the input is named on every decision about the rewritten call.
  const hook = hooked?.hook === undefined ? {} : { hook: hooked.hook };
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
      ...hook,
      ...extra,
    });
  if (hooked?.decision === 'deny') {
    decided('deny', 'hook', hooked.reason === undefined ? {} : { reason: hooked.reason });
    return enforcement.hookDenied(call.name, hooked.hook, hooked.reason);
  }
  const refusal = await registry.precheck?.(call, { agentId, phase, signal });
  if (signal.aborted) throw signal.reason;
  if (refusal) {
    decided('deny', 'guard', { reason: refusal });
    return refusal;
  }
  const verdict = policy
    ? await policy.evaluate({ agentId, phase, toolName: call.name, arguments: call.arguments })
    : null;
  if (signal.aborted) throw signal.reason;
  if (verdict?.decision === 'deny') {
    decided('deny', 'rule', { rule: verdict.rule, reason: verdict.message });
    return verdict.message;
  }
  if (hooked?.decision === 'allow') {
    decided('allow', 'hook', hooked.reason === undefined ? {} : { reason: hooked.reason });
    return null;
  }
  if (hooked?.decision !== 'ask' && verdict?.decision === 'allow') {
    decided('allow', 'rule', { rule: verdict.rule });
    return null;
  }
  if (hooked?.decision !== 'ask' && verdict === null && policy?.unmatched !== 'ask') {
    decided('allow', 'default');
    return null;
  }
  const rule = verdict?.rule;
  if (!ctx.approver) {
    const why = hooked?.decision === 'ask' ? NOBODY_TO_ASK_HOOK : NOBODY_TO_ASK;
    decided('deny', 'none', { ...(rule ? { rule } : {}), reason: why });
    return enforcement.deniedCall(call.name, why);
  }
  const decision = await holdForApproval(ctx, site, call, { approver: ctx.approver, rule });
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
