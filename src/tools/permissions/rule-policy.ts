import path from 'node:path';
import type { ToolPolicy, ToolPolicyRequest, ToolPolicyVerdict } from '../../types/tool.js';
import { pathsOf } from './call-facts.js';
import { deniedMessage, evaluateRules, type AgentRules, type CallContext, type RuleMatch } from './rules.js';

/**
 * Where an absolute path really leads (symbolic links resolved; for a path not there yet, its nearest
 * existing folder), or null when that cannot be told. Injected, so this module stays free of disk access.
 */
export type RealPathOf = (absolute: string) => Promise<string | null>;

/** `context` with the real locations of its folders added, so real paths anchor like names do. */
async function withRealFolders(context: CallContext, realPathOf: RealPathOf): Promise<CallContext> {
  const folders = [...(context.cwd === null ? [] : [context.cwd]), ...context.roots];
  const real = await Promise.all(folders.map(realPathOf));
  const extra = real.filter((r): r is string => r !== null && !folders.includes(r));
  const aliases = await Promise.all(
    (context.aliases ?? []).map(async (alias) => {
      const from = await realPathOf(alias.from);
      return from !== null && from !== alias.from ? [alias, { ...alias, from }] : [alias];
    }),
  );
  return { ...context, roots: [...context.roots, ...extra], aliases: aliases.flat() };
}

/** The real location of each path argument of the call that has one. */
async function realPathsOf(
  call: { toolName: string; arguments: unknown },
  context: CallContext,
  realPathOf: RealPathOf,
): Promise<Map<string, string>> {
  const real = new Map<string, string>();
  for (const given of pathsOf(call.toolName, call.arguments)) {
    if (given.includes('\0')) continue;
    // Joined, not resolved: `..` after a link goes up from its target, as the OS does it.
    const absolute = path.isAbsolute(given)
      ? given
      : context.cwd === null
        ? null
        : `${context.cwd}${path.sep}${given}`;
    const resolved = absolute === null ? null : await realPathOf(absolute);
    if (resolved !== null) real.set(given, resolved);
  }
  return real;
}

/**
 * The run's {@link ToolPolicy} over each agent's rules. An agent missing from `byAgent` has no rules.
 * `unmatched`: what happens to calls no rule matched (`ask` when `auto_approve: false`). With
 * `realPathOf`, path conditions see where each path argument really leads as well as its name, so a
 * symbolic link cannot carry a call past a `deny` (the verdict then comes as a promise).
 */
export function createRulePolicy(
  byAgent: ReadonlyMap<string, AgentRules>,
  unmatched: 'allow' | 'ask',
  realPathOf?: RealPathOf,
): ToolPolicy {
  const verdict = (request: ToolPolicyRequest, match: RuleMatch | null): ToolPolicyVerdict | null => {
    if (match === null) return null;
    if (match.rule.action === 'deny') {
      return { decision: 'deny', rule: match.ref, message: deniedMessage(request.toolName, match) };
    }
    return { decision: match.rule.action, rule: match.ref };
  };
  const realContexts = new Map<string, Promise<CallContext>>();
  return {
    unmatched,
    evaluate(request: ToolPolicyRequest) {
      const agent = byAgent.get(request.agentId);
      if (!agent) return null;
      if (realPathOf === undefined || pathsOf(request.toolName, request.arguments).length === 0) {
        return verdict(request, evaluateRules(agent.lists, request, agent.context));
      }
      return (async () => {
        let context = realContexts.get(request.agentId);
        if (context === undefined) {
          context = withRealFolders(agent.context, realPathOf);
          realContexts.set(request.agentId, context);
        }
        const resolved = await context;
        const realPaths = await realPathsOf(request, resolved, realPathOf);
        return verdict(request, evaluateRules(agent.lists, { ...request, realPaths }, resolved));
      })();
    },
  };
}
