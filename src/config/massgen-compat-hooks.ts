import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { isRecord } from '../util/guards.js';

/**
 * MassGen's hooks (`hooks:` at the top level, `backend.hooks` per agent), applied by the compat pass
 * before the table (`massgen-compat-table.ts` has their documentation rows): an entry
 * `{matcher, handler, type: command, timeout}` becomes Claude Code's
 * `{matcher, hooks: [{type: command, command: handler, timeout}]}` (docs/hooks.md); a `type: python`
 * entry names a Python callable, which massgen cannot call: left out with a note. `backend.hooks`
 * moves to the agent's `hooks`; MassGen's `override` (drop the team's hooks for this agent) is not
 * supported: noted, and the team's hooks still run.
 */
export function massgenHooksToClaude(
  root: Record<string, unknown>,
  agents: readonly [Record<string, unknown>, PathSegment[]][],
  notes: ConfigProblem[],
): void {
  if (isRecord(root.hooks)) convertBlock(root.hooks, ['hooks'], notes);
  for (const [agent, at] of agents) {
    const backend = agent.backend;
    if (!isRecord(backend) || backend.hooks === undefined) continue;
    const where: PathSegment[] = [...at, 'backend', 'hooks'];
    const hooks = backend.hooks;
    delete backend.hooks;
    if (!isRecord(hooks)) continue;
    convertBlock(hooks, where, notes);
    if (agent.hooks === undefined) agent.hooks = hooks;
    else
      notes.push({
        path: where,
        at: 'key',
        message: `${formatPath(where)} (MassGen): ignored, hooks is set too`,
      });
  }
}

function convertBlock(block: Record<string, unknown>, at: PathSegment[], notes: ConfigProblem[]): void {
  for (const [event, list] of Object.entries(block)) {
    if (!Array.isArray(list)) continue;
    const out: unknown[] = [];
    list.forEach((entry: unknown, index) => {
      const where = [...at, event, index];
      if (!isRecord(entry) || entry.handler === undefined) return void out.push(entry);
      const { handler, type, timeout, matcher, override, fail_closed: failClosed } = entry;
      if (override !== undefined || failClosed !== undefined)
        notes.push({
          path: where,
          at: 'key',
          message: `${formatPath(where)} (MassGen): ${override !== undefined ? 'override' : 'fail_closed'} is not supported: team hooks still run, and a failing hook is a warning`,
        });
      if (type === 'python') {
        notes.push({
          path: where,
          at: 'key',
          message: `${formatPath(where)} (MassGen): a Python callable hook (${String(handler)}) cannot run here: left out`,
          hint: 'write it as a command hook: a script reading the event as JSON on stdin (docs/hooks.md)',
        });
        return;
      }
      out.push({
        ...(matcher === undefined ? {} : { matcher }),
        hooks: [{ type: 'command', command: handler, ...(timeout === undefined ? {} : { timeout }) }],
      });
    });
    block[event] = out;
  }
}
