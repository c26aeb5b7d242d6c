import { describeError } from '../types/errors.js';
import type { PlanningDecision } from '../types/events.js';
import type { ToolCall, ToolDefinition } from '../types/messages.js';
import { emptyUsage } from '../types/usage.js';
import { matchesAnyToolPattern } from '../util/tool-patterns.js';
import { classificationPrompt, CLASSIFY_TOOLS } from './prompts.js';
import type { RunContext } from './run-context.js';
import { PlanningPolicy } from './planning-policy.js';

type Hint = Pick<PlanningDecision, 'allowed' | 'source'>;

/** What the tool's own declaration or the config says, or undefined when neither says anything. */
function hintFor(tool: ToolDefinition, allowedPatterns: readonly string[]): Hint | undefined {
  if (matchesAnyToolPattern(tool.name, allowedPatterns)) return { allowed: true, source: 'config' };
  const { readOnly, destructive, confined } = tool.annotations ?? {};
  if (readOnly === true || confined === true) return { allowed: true, source: 'annotation' };
  // An explicit "not read-only" or "destructive" both mean the tool changes something.
  if (readOnly === false || destructive === true) return { allowed: false, source: 'annotation' };
  return undefined;
}

function readOnlyNames(call: ToolCall | undefined, candidates: ReadonlySet<string>): Set<string> {
  const args = call?.arguments;
  const listed =
    typeof args === 'object' &&
    args !== null &&
    Array.isArray((args as Record<string, unknown>).read_only_tools)
      ? ((args as Record<string, unknown>).read_only_tools as unknown[])
      : null;
  if (listed === null)
    throw new Error(`the model did not call ${CLASSIFY_TOOLS} with a read_only_tools list`);
  return new Set(listed.filter((n): n is string => typeof n === 'string' && candidates.has(n)));
}

/**
 * Asks one model which of `tools` only read. One call, no retries: on any failure the caller defers
 * every unclassified tool, which is the safe side.
 */
async function analyse(
  ctx: RunContext,
  agentIndex: number,
  tools: readonly ToolDefinition[],
  signal: AbortSignal,
): Promise<Set<string>> {
  const agent = ctx.state.agent(agentIndex);
  const names = new Set(tools.map((t) => t.name));
  const { system, user, tool } = classificationPrompt(ctx.question, tools);
  let call: ToolCall | undefined;
  let usage = emptyUsage();
  for await (const part of agent.spec.backend.stream({
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    tools: [tool],
    toolChoice: 'required',
    signal,
  })) {
    if (part.type === 'tool-call' && part.call.name === CLASSIFY_TOOLS) call ??= part.call;
    else if (part.type === 'finish') usage = part.usage;
  }
  ctx.addUsage(agent.spec.id, usage);
  return readOnlyNames(call, names);
}

/**
 * Decides, before coordination starts, which tools each agent may run while coordinating: the
 * config's `planning_mode_allowed_tools`, then the tools' own read-only/destructive hints, then one
 * classification call to the first agent's model for the rest. Emits `planning.tools.classified`.
 */
export async function classifyTools(ctx: RunContext, signal: AbortSignal): Promise<PlanningPolicy> {
  const patterns = ctx.settings.planningModeAllowedTools;
  const perAgent = ctx.state.agents.map((agent) => ({
    agentId: agent.spec.id,
    tools: agent.spec.tools?.list({ agentId: agent.spec.id, phase: 'coordination' }) ?? [],
  }));
  const unknown = new Map<string, ToolDefinition>();
  for (const { tools } of perAgent) {
    for (const tool of tools)
      if (!hintFor(tool, patterns) && !unknown.has(tool.name)) unknown.set(tool.name, tool);
  }

  let analysed: Set<string> | null = null;
  let error: { code: string; message: string } | undefined;
  const analyst = unknown.size > 0 ? (ctx.state.agents[0] ?? null) : null;
  if (analyst) {
    try {
      analysed = await analyse(ctx, analyst.index, [...unknown.values()], signal);
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      error = { code: 'planning_analysis_failed', message: describeError(cause) };
    }
  }

  const decisions: PlanningDecision[] = perAgent.flatMap(({ agentId, tools }) =>
    tools.map((tool): PlanningDecision => {
      const hint = hintFor(tool, patterns);
      if (hint) return { agentId, toolName: tool.name, ...hint };
      if (analysed)
        return { agentId, toolName: tool.name, allowed: analysed.has(tool.name), source: 'analysis' };
      return { agentId, toolName: tool.name, allowed: false, source: 'default' };
    }),
  );
  ctx.emit({
    type: 'planning.tools.classified',
    decisions,
    analysisAgentId: analyst?.spec.id ?? null,
    ...(error ? { error } : {}),
  });
  return new PlanningPolicy(decisions);
}
