import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { isRecord } from '../util/guards.js';

/**
 * MassGen's keys that become massgen's permission engine (docs/permissions.md), applied by the compat
 * pass before the table (`massgen-compat-table.ts`, where these keys have documentation rows):
 *
 * - `orchestrator.coordination.write_mode` (`auto`, `worktree`, `isolated`, `legacy`) and the
 *   deprecated `use_two_tier_workspace: true` become `write_mode` on every `write` context path;
 * - an agent's `command_line_blocked_commands` become `deny` rules for `execute_command`, and its
 *   `command_line_allowed_commands` `allow` rules followed by a `deny` of every other command — both
 *   over MassGen's regular expressions (`command_regex`, matched from the start as MassGen does).
 */

type Node = Record<string, unknown>;

const WRITE_MODES: Record<string, string> = {
  auto: 'worktree',
  worktree: 'worktree',
  isolated: 'isolated',
  legacy: 'direct',
};

/** Moves MassGen's coordination write mode onto the `write` context paths. */
export function writeModeToContextPaths(root: Node, notes: ConfigProblem[]): void {
  const orchestrator = root.orchestrator;
  if (!isRecord(orchestrator) || !isRecord(orchestrator.coordination)) return;
  const coordination = orchestrator.coordination;
  const where: PathSegment[] = ['orchestrator', 'coordination'];
  let mode: string | undefined;
  let key: string | undefined;
  if (coordination.write_mode !== undefined) {
    key = 'write_mode';
    mode = typeof coordination.write_mode === 'string' ? WRITE_MODES[coordination.write_mode] : undefined;
    if (mode === undefined) {
      notes.push({
        path: [...where, key],
        at: 'key',
        message: `${formatPath([...where, key])} (MassGen): ${JSON.stringify(coordination.write_mode)} is not one of auto, worktree, isolated, legacy: ignored`,
      });
    }
    delete coordination.write_mode;
  }
  if (coordination.use_two_tier_workspace !== undefined) {
    const two = coordination.use_two_tier_workspace;
    delete coordination.use_two_tier_workspace;
    if (key === undefined && two === true) {
      key = 'use_two_tier_workspace';
      mode = 'worktree';
    } else {
      notes.push({
        path: [...where, 'use_two_tier_workspace'],
        at: 'key',
        message: `${formatPath([...where, 'use_two_tier_workspace'])} (MassGen): deprecated; ${two === true ? 'write_mode decides' : 'ignored'}`,
      });
    }
  }
  if (key === undefined || mode === undefined) return;
  const paths = Array.isArray(orchestrator.context_paths) ? orchestrator.context_paths : [];
  const changed: number[] = [];
  paths.forEach((entry, index) => {
    if (!isRecord(entry) || entry.permission !== 'write' || entry.write_mode !== undefined) return;
    entry.write_mode = mode;
    changed.push(index);
  });
  notes.push({
    path: [...where, key],
    at: 'key',
    message:
      changed.length === 0
        ? `${formatPath([...where, key])} (MassGen): no write context path to isolate: ignored`
        : `${formatPath([...where, key])} (MassGen): became write_mode: ${mode} on ${changed.map((i) => `context_paths[${i}]`).join(', ')}`,
  });
}

const asList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');

/** Turns MassGen's command filters of one agent's backend into that agent's permission rules. */
export function commandFiltersToRules(
  agent: Node,
  backend: Node,
  path: PathSegment[],
  notes: ConfigProblem[],
): void {
  const blocked = backend.command_line_blocked_commands;
  const allowed = backend.command_line_allowed_commands;
  if (blocked === undefined && allowed === undefined) return;
  delete backend.command_line_blocked_commands;
  delete backend.command_line_allowed_commands;
  const rules: Node[] = [];
  const blockedList = asList(blocked);
  const allowedList = asList(allowed);
  if (blockedList.length > 0) {
    rules.push({
      deny: 'execute_command',
      command_regex: blockedList,
      reason: 'blocked by command_line_blocked_commands',
    });
  }
  if (allowedList.length > 0) {
    rules.push(
      { allow: 'execute_command', command_regex: allowedList },
      { deny: 'execute_command', reason: 'only the commands in command_line_allowed_commands may run' },
    );
  }
  if (rules.length === 0) return;
  const existing = Array.isArray(agent.permissions) ? agent.permissions : [];
  agent.permissions = [...existing, ...rules];
  const agentPath = path.slice(0, -1);
  for (const [key, list] of [
    ['command_line_blocked_commands', blockedList],
    ['command_line_allowed_commands', allowedList],
  ] as const) {
    if (list.length === 0) continue;
    notes.push({
      path: [...path, key],
      at: 'key',
      message: `${formatPath([...path, key])} (MassGen): became ${key.includes('blocked') ? 'a deny rule' : 'allow and deny rules'} in ${formatPath([...agentPath, 'permissions'])} (command_regex)`,
    });
  }
}
