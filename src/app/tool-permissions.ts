import { realpathSync } from 'node:fs';
import type { MassGenConfig } from '../config/index.js';
import type { PermissionRuleConfig } from '../config/permission-schema.js';
import { realPathOf } from '../tools/permissions/check-path.js';
import { deniedOnDisk } from '../tools/permissions/denied-on-disk.js';
import type { PathDenial } from '../tools/permissions/path-policy.js';
import { createRulePolicy } from '../tools/permissions/rule-policy.js';
import {
  readDenial,
  readDeniedWhy,
  type AgentRules,
  type PermissionRule,
  type RuleList,
} from '../tools/permissions/rules.js';
import type { ToolPolicy } from '../types/tool.js';
import { hasPermissionRules } from './holds-tool-calls.js';
import type { ContextPathInfo, RunWorkspaces } from '../workspace/index.js';

/**
 * The run's permission engine from the config (docs/permissions.md): each agent's `permissions` rules
 * first, then the team's, evaluated by the pure module in `src/tools/permissions/rules.ts`.
 */

const list = (value: string | readonly string[] | undefined): string[] | undefined =>
  value === undefined ? undefined : typeof value === 'string' ? [value] : [...value];

/** A rule as the config writes it → as the engine reads it. */
export function toPermissionRule(rule: PermissionRuleConfig): PermissionRule {
  const action = rule.deny !== undefined ? 'deny' : rule.ask !== undefined ? 'ask' : 'allow';
  const conditions: Omit<PermissionRule, 'action' | 'tool'> = {
    ...(rule.path === undefined ? {} : { path: list(rule.path) }),
    ...(rule.command === undefined ? {} : { command: list(rule.command) }),
    ...(rule.command_regex === undefined ? {} : { commandRegex: list(rule.command_regex) }),
    ...(rule.server === undefined ? {} : { server: rule.server }),
    ...(rule.mcp_tool === undefined ? {} : { mcpTool: rule.mcp_tool }),
    ...(rule.host === undefined ? {} : { host: list(rule.host) }),
    ...(rule.args === undefined ? {} : { args: { ...rule.args } }),
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
  };
  return { action, tool: (rule[action] as string | undefined) ?? '*', ...conditions };
}

/** Real path where it exists, else as given: relative patterns then anchor at real locations too. */
function real(folder: string): string[] {
  try {
    const resolved = realpathSync(folder);
    return resolved === folder ? [folder] : [folder, resolved];
  } catch {
    return [folder];
  }
}

/**
 * Each agent's rules (its own list, then the team's) and where its relative paths resolve: its
 * workspace, and the context paths as it sees them (its own checkout standing for the user's folder).
 */
export function agentRuleSets(
  config: MassGenConfig,
  options: {
    workspaces: RunWorkspaces | null;
    contextPaths: readonly ContextPathInfo[];
    first?: readonly RuleList[];
  },
): Map<string, AgentRules> {
  const team: RuleList = {
    scope: 'team',
    label: 'permissions',
    rules: config.permissions.map(toPermissionRule),
  };
  const byAgent = new Map<string, AgentRules>();
  config.agents.forEach((agent, index) => {
    const own: RuleList = {
      scope: 'agent',
      label: `agents[${index}].permissions`,
      rules: (agent.permissions ?? []).map(toPermissionRule),
    };
    const seen = options.workspaces?.contextPathsOf(agent.id) ?? options.contextPaths;
    const cwd = options.workspaces?.workspaceOf(agent.id) ?? null;
    byAgent.set(agent.id, {
      lists: [...(options.first ?? []), own, team],
      context: {
        cwd,
        // An own checkout's original is a root too: the sandbox shows the user's folder as well.
        roots: [
          ...(cwd === null ? [] : real(cwd).slice(1)),
          ...seen.flatMap((c) => [...real(c.path), ...(c.original ? real(c.original) : [])]),
        ],
        aliases: seen.flatMap((c) =>
          c.original ? real(c.path).map((from) => ({ from, to: c.original as string })) : [],
        ),
      },
    });
  });
  return byAgent;
}

/**
 * The {@link ToolPolicy} of a run, or undefined when nothing decides on calls (no rules, calls run
 * without asking) — the run then behaves exactly as before. `held`: calls no rule matched wait for the
 * approver (`auto_approve: false`, or a library caller's `onToolApproval`). `first`: rules the run's
 * capabilities add (`memory.save: ask`), asked before every agent's and the team's. Path conditions see where a
 * path argument really leads as well as its name.
 */
export function buildToolPolicy(
  config: MassGenConfig,
  options: {
    held: boolean;
    workspaces: RunWorkspaces | null;
    contextPaths: readonly ContextPathInfo[];
    first?: readonly RuleList[];
  },
): ToolPolicy | undefined {
  if (!options.held && !hasPermissionRules(config) && (options.first ?? []).length === 0) return undefined;
  return createRulePolicy(agentRuleSets(config, options), options.held ? 'ask' : 'allow', realPathOf);
}

/**
 * What an agent's rules deny its tools on disk: `read` for a real path the path checker asks about
 * (the rule named), `onDisk` for the files a sandbox hides under the folders the rules anchor at.
 */
export function ruleDenials(rules: AgentRules): {
  read: PathDenial;
  onDisk: (folders: readonly string[]) => string[];
} {
  return {
    read: (realPath) => {
      const match = readDenial(rules, realPath);
      return match === null ? null : { why: readDeniedWhy(match), byRule: true };
    },
    onDisk: (folders) => deniedOnDisk(rules, folders),
  };
}
