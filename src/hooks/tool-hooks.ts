import type { HookEvent } from '../config/hooks-schema.js';
import type { PostToolHookOutcome, PreToolHookOutcome, ToolHookRequest, ToolHooks } from '../types/tool.js';
import { isRecord } from '../util/guards.js';
import { readHookAnswer, type HookAnswer } from './hook-output.js';
import { matches, type HookEntry, type HookSet } from './hook-set.js';
import { runCommandHook, type HookHost } from './run-hook.js';

/**
 * The run's hooks around tool calls (docs/hooks.md), for the orchestrator's {@link ToolHooks} seam.
 * The hooks that match a call run at once, in parallel as in Claude Code; their answers combine with
 * `deny` over `ask` over `allow`, the last rewritten input wins, and added context is joined.
 */

/** One answer and the hook that gave it. */
export interface LabelledAnswer extends HookAnswer {
  label: string;
}

/** The input every hook gets on stdin: Claude Code's common fields, then the event's own. */
export function hookInput(
  event: HookEvent,
  sessionId: string,
  cwd: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return {
    session_id: sessionId,
    transcript_path: null,
    cwd,
    permission_mode: 'default',
    hook_event_name: event,
    ...fields,
  };
}

/** Runs every entry of `event` that matches `toolName`, at once; each answer labelled. */
export async function runMatching(
  event: HookEvent,
  entries: readonly HookEntry[],
  toolName: string | null,
  input: Record<string, unknown>,
  vars: Record<string, string>,
  host: HookHost,
  signal: AbortSignal,
): Promise<LabelledAnswer[]> {
  const chosen = entries.filter((entry) => matches(entry, toolName));
  return Promise.all(
    chosen.map(async (entry) => {
      const run = await runCommandHook(entry.hook, input, vars, host, signal);
      return { label: entry.label, ...readHookAnswer(event, entry.label, run) };
    }),
  );
}

const RANK = { deny: 3, block: 3, ask: 2, allow: 1 } as const;

/** The combined word of a PreToolUse's answers (exported for unit tests). */
export function combinePre(answers: readonly LabelledAnswer[]): PreToolHookOutcome {
  const warnings = answers.flatMap((a) => (a.warning ? [a.warning] : []));
  let decider: LabelledAnswer | null = null;
  for (const answer of answers) {
    if (answer.decision === null) continue;
    if (decider === null || RANK[answer.decision] > RANK[decider.decision!]) decider = answer;
  }
  const rewrote = answers.filter((a) => a.updatedInput !== undefined).at(-1);
  const context = joined(answers);
  const decision = decider?.decision === 'block' ? 'deny' : (decider?.decision ?? null);
  const hook = decider?.label ?? rewrote?.label;
  return {
    decision,
    warnings,
    ...(decider?.reason === undefined ? {} : { reason: decider.reason }),
    ...(hook === undefined ? {} : { hook }),
    // A denied call never runs: its rewritten input is beside the point.
    ...(rewrote && decision !== 'deny' ? { updatedInput: rewrote.updatedInput! } : {}),
    ...(context === undefined ? {} : { additionalContext: context }),
  };
}

/** PostToolUse: a `block` with a reason, and added context, both go to the model. */
export function combinePost(answers: readonly LabelledAnswer[]): PostToolHookOutcome {
  const warnings = answers.flatMap((a) => (a.warning ? [a.warning] : []));
  const context = joined(answers, true);
  return { warnings, ...(context === undefined ? {} : { additionalContext: context }) };
}

function joined(answers: readonly LabelledAnswer[], withReasons = false): string | undefined {
  const parts = answers.flatMap((a) => [
    ...(withReasons && a.decision === 'block' && a.reason ? [a.reason] : []),
    ...(a.additionalContext ? [a.additionalContext] : []),
  ]);
  return parts.length === 0 ? undefined : parts.join('\n');
}

/** The variables MassGen gives its command hooks, besides the JSON on stdin. */
const massgenVars = (event: HookEvent, request: ToolHookRequest): Record<string, string> => ({
  MASSGEN_HOOK_TYPE: event,
  MASSGEN_TOOL_NAME: request.toolName,
  MASSGEN_SESSION_ID: request.runId,
  MASSGEN_AGENT_ID: request.agentId,
});

const toolInput = (args: unknown) => (isRecord(args) ? args : {});

/** The {@link ToolHooks} of a run: each agent's hooks (`setOf`), started through `host`. */
export function createToolHooks(setOf: (agentId: string) => HookSet, host: HookHost): ToolHooks {
  const callFields = (request: ToolHookRequest) => ({
    tool_name: request.toolName,
    tool_input: toolInput(request.arguments),
    tool_use_id: request.callId,
    agent_id: request.agentId,
  });
  return {
    async preToolUse(request, signal) {
      const entries = setOf(request.agentId).PreToolUse;
      if (entries.length === 0) return { decision: null, warnings: [] };
      const input = hookInput('PreToolUse', request.runId, host.cwd, callFields(request));
      const answers = await runMatching(
        'PreToolUse',
        entries,
        request.toolName,
        input,
        massgenVars('PreToolUse', request),
        host,
        signal,
      );
      return combinePre(answers);
    },
    async postToolUse(request, signal) {
      const entries = setOf(request.agentId).PostToolUse;
      if (entries.length === 0) return { warnings: [] };
      const input = hookInput('PostToolUse', request.runId, host.cwd, {
        ...callFields(request),
        tool_response: { content: request.result, is_error: request.isError },
      });
      const answers = await runMatching(
        'PostToolUse',
        entries,
        request.toolName,
        input,
        massgenVars('PostToolUse', request),
        host,
        signal,
      );
      return combinePost(answers);
    },
  };
}
