/**
 * The permission engine in the coordination core, on ScriptedBackend (no disk, no network): the fixed
 * checks first (a registry's precheck), then the rules — `deny` refuses naming the rule, `allow` runs,
 * `ask` waits for the approver and says which rule asked — and for no match the run's usual behaviour;
 * every decision is a `tool.permission.decided` event. And the workspaces' `conclude` runs after the
 * presentation, its events before `run.finished`.
 */
import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import { ScriptedBackend, type ScriptStep } from '../../src/testing/scripted-backend.js';
import { createRulePolicy } from '../../src/tools/permissions/rule-policy.js';
import type { PermissionRule } from '../../src/tools/permissions/rules.js';
import type { RunEvent, RunEventOf } from '../../src/types/events.js';
import type { ToolDefinition } from '../../src/types/messages.js';
import type { ToolApprover, ToolRegistry } from '../../src/types/tool.js';
import type { WorkspaceHooks } from '../../src/types/workspace.js';

const call = (name: string, args: unknown = {}): ScriptStep => ({ toolCalls: [{ name, arguments: args }] });

/** File-like tools; `precheck` refuses any path under `/etc` as the fixed path check would. */
function fileTools() {
  const executed: string[] = [];
  const definitions: ToolDefinition[] = ['write_file', 'read_file'].map((name) => ({
    name,
    description: name,
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  }));
  const registry: ToolRegistry = {
    list: () => definitions,
    execute: async (c) => {
      executed.push(`${c.name} ${(c.arguments as { path: string }).path}`);
      return { content: `${c.name} done` };
    },
    precheck: async (c) =>
      String((c.arguments as { path?: string }).path ?? '').startsWith('/etc')
        ? `"${(c.arguments as { path: string }).path}" is outside your workspace.`
        : null,
  };
  return { registry, executed };
}

const team = (rules: PermissionRule[]) =>
  new Map([
    [
      'a',
      {
        lists: [{ scope: 'team' as const, label: 'permissions', rules }],
        context: { cwd: '/ws', roots: [] },
      },
    ],
  ]);

async function run(
  steps: ScriptStep[],
  rules: PermissionRule[],
  approver?: ToolApprover,
  unmatched: 'allow' | 'ask' = 'allow',
) {
  const { registry, executed } = fileTools();
  const backend = new ScriptedBackend(steps, { model: 'm' });
  const orchestrator = new Orchestrator({
    agents: [{ id: 'a', backend, tools: registry }],
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000 },
    toolPolicy: createRulePolicy(team(rules), unmatched),
    ...(approver ? { approveToolCall: approver } : {}),
  });
  const recorder = new EventRecorder();
  for await (const event of orchestrator.run('Write the files.')) recorder.events.push(event);
  return { events: recorder.events, executed, backend };
}

const ofType = <T extends RunEvent['type']>(events: readonly RunEvent[], type: T) =>
  events.filter((e): e is RunEventOf<T> => e.type === type);

describe('the permission engine in the agent loop', () => {
  it('deny refuses naming the rule, allow runs, the fixed checks come first, no match keeps the usual behaviour', async () => {
    const { events, executed } = await run(
      [
        call('write_file', { path: 'secrets/k' }),
        call('read_file', { path: 'notes.md' }),
        call('write_file', { path: '/etc/passwd' }),
        call('write_file', { path: 'notes.md' }),
        { text: 'done' },
      ],
      [
        { action: 'deny', tool: 'write_file', path: ['secrets/**'], reason: 'no secrets' },
        { action: 'allow', tool: 'read_file' },
        // Would allow /etc: the fixed path check refuses first.
        { action: 'allow', tool: 'write_file', path: ['/etc/**'] },
      ],
    );
    expect(executed).toEqual(['read_file notes.md', 'write_file notes.md']);
    const finished = ofType(events, 'tool.call.finished');
    expect(finished[0]).toMatchObject({
      isError: true,
      result:
        'The call to write_file was denied by permission rule permissions[0] (deny write_file path=secrets/**): no secrets. Do not retry it unchanged; continue without it or try another approach.',
    });
    expect(finished[2]).toMatchObject({ isError: true, result: '"/etc/passwd" is outside your workspace.' });
    expect(
      ofType(events, 'tool.permission.decided').map((e) => [e.toolName, e.decision, e.by, e.rule?.label]),
    ).toEqual([
      ['write_file', 'deny', 'rule', 'permissions[0]'],
      ['read_file', 'allow', 'rule', 'permissions[1]'],
      ['write_file', 'deny', 'guard', undefined],
      ['write_file', 'allow', 'default', undefined],
    ]);
    // Each decision comes before its call's result, and nobody was asked.
    const order = events.map((e) => e.type).filter((t) => t.startsWith('tool.'));
    expect(order.slice(0, 3)).toEqual(['tool.call.started', 'tool.permission.decided', 'tool.call.finished']);
    expect(ofType(events, 'tool.approval.requested')).toEqual([]);
  });

  it('ask holds the call for the approver and says which rule asked; the answer and who gave it are recorded', async () => {
    const asked: unknown[] = [];
    const approver: ToolApprover = async (request) => {
      asked.push(request.rule);
      return (request.arguments as { path: string }).path === 'ok.md'
        ? { approved: true, by: 'terminal' }
        : { approved: false, reason: 'not that one', by: 'web' };
    };
    const { events, executed } = await run(
      [call('write_file', { path: 'ok.md' }), call('write_file', { path: 'no.md' }), { text: 'done' }],
      [{ action: 'ask', tool: 'write_file' }],
      approver,
    );
    expect(executed).toEqual(['write_file ok.md']);
    expect(asked).toEqual([
      { label: 'permissions[0]', index: 0, scope: 'team', action: 'ask', text: 'ask write_file' },
      { label: 'permissions[0]', index: 0, scope: 'team', action: 'ask', text: 'ask write_file' },
    ]);
    expect(ofType(events, 'tool.approval.requested')[0]?.rule?.label).toBe('permissions[0]');
    expect(ofType(events, 'tool.approval.resolved').map((e) => e.by)).toEqual(['terminal', 'web']);
    expect(ofType(events, 'tool.permission.decided').map((e) => [e.decision, e.by, e.reason])).toEqual([
      ['allow', 'terminal', undefined],
      ['deny', 'web', 'not that one'],
    ]);
  });

  it('without an approver an ask is denied, and with auto_approve: false unmatched calls are asked too', async () => {
    const lone = await run(
      [call('write_file', { path: 'x' }), { text: 'done' }],
      [{ action: 'ask', tool: '*' }],
    );
    expect(ofType(lone.events, 'tool.permission.decided')[0]).toMatchObject({ decision: 'deny', by: 'none' });
    const held = await run(
      [call('read_file', { path: 'x' }), { text: 'done' }],
      [],
      async () => ({ approved: true, by: 'caller' }),
      'ask',
    );
    expect(ofType(held.events, 'tool.approval.requested')[0]?.rule).toBeUndefined();
    expect(ofType(held.events, 'tool.permission.decided')[0]).toMatchObject({
      decision: 'allow',
      by: 'caller',
    });
  });

  it('runs the workspaces’ conclude after the presentation, its events before run.finished', async () => {
    const seen: string[] = [];
    const workspaces: WorkspaceHooks = {
      describe: () => null,
      snapshot: async () => {},
      showPeers: async () => {},
      rewrite: (content) => content,
      conclude: async ({ winnerId, emit }) => {
        seen.push(winnerId);
        emit({
          type: 'changes.applied',
          agentId: winnerId,
          reviewId: 'changes-1',
          contextPath: '/project',
          by: 'default',
          applied: ['a.txt'],
          conflicts: [],
          failed: [],
          skipped: [],
        });
      },
    };
    const orchestrator = new Orchestrator({
      agents: [{ id: 'a', backend: new ScriptedBackend([{ text: 'the answer' }], { model: 'm' }) }],
      settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000 },
      workspaces,
    });
    const types: string[] = [];
    for await (const event of orchestrator.run('Q?')) types.push(event.type);
    expect(seen).toEqual(['a']);
    expect(types.slice(-3)).toEqual(['presentation.finished', 'changes.applied', 'run.finished']);
  });

  it('a consumer that stops reading while a review waits ends the wait (the run does not hang)', async () => {
    let aborted = false;
    const workspaces: WorkspaceHooks = {
      describe: () => null,
      snapshot: async () => {},
      showPeers: async () => {},
      rewrite: (content) => content,
      conclude: ({ signal }) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => ((aborted = true), resolve()), { once: true }),
        ),
    };
    const orchestrator = new Orchestrator({
      agents: [{ id: 'a', backend: new ScriptedBackend([{ text: 'the answer' }], { model: 'm' }) }],
      settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000 },
      workspaces,
    });
    for await (const event of orchestrator.run('Q?')) if (event.type === 'presentation.finished') break;
    expect(aborted).toBe(true);
  });
});
