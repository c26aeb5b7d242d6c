import path from 'node:path';
import { loadPicomatch } from '../../util/picomatch.js';
import type picomatch from 'picomatch';
import type { PermissionRuleRef } from '../../types/permission-events.js';
import { matchesToolPattern } from '../../util/tool-patterns.js';
import { argumentsOf, commandOf, hostsOf, mcpPartsOf, pathsOf, splitCommand } from './call-facts.js';

/**
 * Permission rules (docs/permissions.md): ordered `allow` / `ask` / `deny` rules over a tool call's
 * name and arguments. Pure — no disk, no clock — so the same call always gets the same verdict.
 *
 * A rule matches when its tool pattern matches the tool name and every condition it has holds. The
 * first matching rule wins (the agent's own rules before the team's); no match means the run's usual
 * behaviour. Conditions that see several values in one call (two path arguments, `a && b`, several
 * URLs) are strict for `allow` — every value must match — and broad for `ask` and `deny` — one is
 * enough — so a rule never lets more through than it names.
 */

export type PermissionAction = 'allow' | 'ask' | 'deny';

/** One rule, as `permissions:` in the config gives it (keys camel-cased). */
export interface PermissionRule {
  action: PermissionAction;
  /** Tool-name pattern (`write_file`, `mcp__github__*`, `*`). */
  tool: string;
  /** Path globs: relative ones are anchored at the agent's workspace and each context path. */
  path?: readonly string[];
  /** Command globs, `*` matching anything (`git push*`). */
  command?: readonly string[];
  /** Command regular expressions, matched from the start (MassGen's `command_line_*_commands`). */
  commandRegex?: readonly string[];
  /** MCP server-name pattern (the `<server>` of `mcp__<server>__<tool>`). */
  server?: string;
  /** MCP tool-name pattern (the `<tool>` of `mcp__<server>__<tool>`). */
  mcpTool?: string;
  /** Network host patterns (`*.example.com`). */
  host?: readonly string[];
  /** Argument name → pattern over its value (JSON for non-strings). */
  args?: Readonly<Record<string, string>>;
  /** Said to the model with a denial, and shown with a question. */
  reason?: string;
}

/** The rules of one scope, in order; `label` is where they are written (`agents[0].permissions`). */
export interface RuleList {
  scope: 'agent' | 'team';
  label: string;
  rules: readonly PermissionRule[];
}

/** Where relative paths of one agent's calls resolve: its workspace, and the folders it may use. */
export interface CallContext {
  /** The agent's workspace (relative path arguments resolve here), or null. */
  cwd: string | null;
  /** More folders relative path patterns are anchored at (the context paths as this agent sees them). */
  roots: readonly string[];
  /**
   * Folders that stand for others: an agent's own checkout of a context path (`write_mode: worktree`)
   * stands for the user's folder, so a rule about `/home/me/project/secrets` covers the checkout too.
   */
  aliases?: readonly { from: string; to: string }[];
}

/**
 * A call as the rules see it. `realPaths`: where each path argument really leads (symbolic links
 * resolved), by the argument as given — a rule matches the real location as well as the name.
 */
export interface RuleCall {
  toolName: string;
  arguments: unknown;
  realPaths?: ReadonlyMap<string, string>;
}

/** A rule that matched, with how decisions name it. */
export interface RuleMatch {
  rule: PermissionRule;
  ref: PermissionRuleRef;
}

const PATH_OPTIONS: picomatch.PicomatchOptions = {
  dot: true,
  windows: false,
  nonegate: true,
  noextglob: true,
};

const pathMatchers = new Map<string, picomatch.Matcher>();

/** A path glob also covers everything under what it names (`secrets` = `secrets` and `secrets/**`). */
export function pathMatcher(pattern: string): picomatch.Matcher {
  let matcher = pathMatchers.get(pattern);
  if (matcher === undefined) {
    const trimmed = pattern === '/' ? '/**' : pattern.replace(/^\.\//, '').replace(/\/+$/, '') || '.';
    const forms = trimmed.endsWith('**') ? [trimmed] : [trimmed, `${trimmed}/**`];
    matcher = loadPicomatch()(forms, PATH_OPTIONS);
    pathMatchers.set(pattern, matcher);
  }
  return matcher;
}

interface PathFact {
  absolute: string[];
  relative: string[];
}

const toPosix = (p: string) => p.split(path.sep).join('/');

/** `rel` of `child` under `root`, or null when outside. */
function under(root: string, child: string): string | null {
  const rel = path.relative(root, child);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? null : toPosix(rel);
}

function pathFact(given: string, context: CallContext): PathFact {
  const resolved = path.isAbsolute(given)
    ? path.normalize(given)
    : context.cwd === null
      ? null
      : path.resolve(context.cwd, given);
  const absolute = resolved === null ? [] : [resolved];
  for (const { from, to } of context.aliases ?? []) {
    const rel = resolved === null ? null : under(from, resolved);
    if (rel !== null) absolute.push(rel === '.' ? to : path.join(to, rel));
  }
  const relative = new Set<string>();
  if (!path.isAbsolute(given)) {
    const normal = path.posix.normalize(given.replace(/\\/g, '/')).replace(/^\.\//, '');
    if (normal !== '..' && !normal.startsWith('../')) relative.add(normal.replace(/\/+$/, '') || '.');
  }
  const roots = [...(context.cwd === null ? [] : [context.cwd]), ...context.roots];
  for (const abs of absolute) {
    for (const root of roots) {
      const rel = under(root, abs);
      if (rel !== null) relative.add(rel);
    }
  }
  return { absolute, relative: [...relative] };
}

function pathMatches(pattern: string, fact: PathFact): boolean {
  const matcher = pathMatcher(pattern);
  if (path.isAbsolute(pattern)) return fact.absolute.some((abs) => matcher(toPosix(abs)));
  return fact.relative.some((rel) => matcher(rel));
}

const regexes = new Map<string, RegExp>();
function regexFor(pattern: string): RegExp {
  let regex = regexes.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(`^(?:${pattern})`);
    regexes.set(pattern, regex);
  }
  return regex;
}

/** `every` value must match for `allow`, `some` is enough for `ask` and `deny`; none at all never matches. */
function quantified(action: PermissionAction, values: readonly string[], test: (v: string) => boolean) {
  if (values.length === 0) return false;
  return action === 'allow' ? values.every(test) : values.some(test);
}

function commandMatches(
  action: PermissionAction,
  command: string | null,
  test: (text: string) => boolean,
): boolean {
  if (command === null) return false;
  const { segments, substitution } = splitCommand(command);
  // A substituted command could be anything: no allow rule vouches for it.
  if (action === 'allow') return !substitution && quantified(action, segments, test);
  return test(command.trim()) || segments.some(test);
}

/**
 * A path argument's name and, when known, its real location: `allow` needs every form to match (a link
 * named `docs/x` into `secrets/` is not vouched for by an allow on `docs/**`), `ask` and `deny` any one.
 */
function pathForms(given: string, call: RuleCall, context: CallContext): PathFact[] {
  const name = pathFact(given, context);
  const real = call.realPaths?.get(given);
  return real === undefined || name.absolute.includes(real) ? [name] : [name, pathFact(real, context)];
}

/** Whether `rule` matches the call (its tool pattern and every condition it has). */
export function ruleMatches(rule: PermissionRule, call: RuleCall, context: CallContext): boolean {
  if (!matchesToolPattern(call.toolName, rule.tool)) return false;
  const { action } = rule;
  if (rule.path) {
    const patterns = rule.path;
    const forms = pathsOf(call.toolName, call.arguments).map((p) => pathForms(p, call, context));
    const one = (fact: PathFact) => patterns.some((pattern) => pathMatches(pattern, fact));
    const ok = (facts: PathFact[]) => (action === 'allow' ? facts.every(one) : facts.some(one));
    if (forms.length === 0 || !(action === 'allow' ? forms.every(ok) : forms.some(ok))) return false;
  }
  if (rule.command) {
    const patterns = rule.command;
    const test = (text: string) => patterns.some((p) => matchesToolPattern(text, p));
    if (!commandMatches(action, commandOf(call.arguments), test)) return false;
  }
  if (rule.commandRegex) {
    const patterns = rule.commandRegex;
    const test = (text: string) => patterns.some((p) => regexFor(p).test(text));
    if (!commandMatches(action, commandOf(call.arguments), test)) return false;
  }
  if (rule.server !== undefined || rule.mcpTool !== undefined) {
    const parts = mcpPartsOf(call.toolName);
    if (parts === null) return false;
    if (rule.server !== undefined && !matchesToolPattern(parts.server, rule.server)) return false;
    if (rule.mcpTool !== undefined && !matchesToolPattern(parts.tool, rule.mcpTool)) return false;
  }
  if (rule.host) {
    const patterns = rule.host.map((h) => h.toLowerCase());
    const test = (host: string) => patterns.some((p) => matchesToolPattern(host, p));
    if (!quantified(action, hostsOf(call.arguments), test)) return false;
  }
  if (rule.args) {
    const record = argumentsOf(call.arguments);
    for (const [key, pattern] of Object.entries(rule.args)) {
      const value = record[key];
      if (value === undefined) return false;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (!matchesToolPattern(text, pattern)) return false;
    }
  }
  return true;
}

const shown = (value: string) => (/^[^\s"'|=]+$/.test(value) ? value : JSON.stringify(value));
const listed = (values: readonly string[]) => values.map(shown).join('|');

/** The rule in one line, e.g. `deny write_file path=secrets/**|*.pem`. */
export function ruleText(rule: PermissionRule): string {
  const parts = [rule.action, shown(rule.tool)];
  if (rule.path) parts.push(`path=${listed(rule.path)}`);
  if (rule.command) parts.push(`command=${listed(rule.command)}`);
  if (rule.commandRegex) parts.push(`command_regex=${listed(rule.commandRegex)}`);
  if (rule.server !== undefined) parts.push(`server=${shown(rule.server)}`);
  if (rule.mcpTool !== undefined) parts.push(`mcp_tool=${shown(rule.mcpTool)}`);
  if (rule.host) parts.push(`host=${listed(rule.host)}`);
  for (const [key, pattern] of Object.entries(rule.args ?? {})) parts.push(`args.${key}=${shown(pattern)}`);
  return parts.join(' ');
}

/** What is wrong with a rule that the schema cannot see (a regular expression that does not compile). */
export function ruleProblems(rule: Pick<PermissionRule, 'commandRegex'>): string[] {
  const problems: string[] = [];
  for (const pattern of rule.commandRegex ?? []) {
    try {
      regexFor(pattern);
    } catch (error) {
      problems.push(`"${pattern}" is not a valid regular expression (${(error as Error).message})`);
    }
  }
  return problems;
}

/** The first rule of `lists` (in order) that matches the call, or null. */
export function evaluateRules(
  lists: readonly RuleList[],
  call: RuleCall,
  context: CallContext,
): RuleMatch | null {
  for (const list of lists) {
    for (const [index, rule] of list.rules.entries()) {
      if (!ruleMatches(rule, call, context)) continue;
      return {
        rule,
        ref: {
          label: `${list.label}[${index}]`,
          index,
          scope: list.scope,
          action: rule.action,
          text: ruleText(rule),
        },
      };
    }
  }
  return null;
}

/** The tool error the model sees for a call a rule denied: it names the rule. */
export function deniedMessage(toolName: string, match: RuleMatch): string {
  const reason = match.rule.reason ? `: ${match.rule.reason}` : '';
  return `The call to ${toolName} was denied by permission rule ${match.ref.label} (${match.ref.text})${reason}. Do not retry it unchanged; continue without it or try another approach.`;
}

/** One agent's rules (its own first, then the team's) and where its relative paths resolve. */
export interface AgentRules {
  lists: readonly RuleList[];
  context: CallContext;
}

/** The first rule that denies `read_file` of `absolute` for this agent, or null: what makes a path unreadable for every tool. */
export function readDenial(agent: AgentRules, absolute: string): RuleMatch | null {
  const match = evaluateRules(
    agent.lists,
    { toolName: 'read_file', arguments: { path: absolute } },
    agent.context,
  );
  return match?.rule.action === 'deny' ? match : null;
}

/** What the path tools say after a path that a read-deny rule covers (see {@link readDenial}). */
export function readDeniedWhy(match: RuleMatch): string {
  const reason = match.rule.reason ? `: ${match.rule.reason}` : '';
  return `may not be read or written by any tool: permission rule ${match.ref.label} (${match.ref.text}) denies it${reason}`;
}
