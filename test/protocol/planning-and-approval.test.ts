import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import type { CoordinationSettings } from '../../src/coordination/settings.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import { ScriptedBackend, type ScriptStep } from '../../src/testing/scripted-backend.js';
import type { RunEvent, RunEventOf } from '../../src/types/events.js';
import type { ToolAnnotations, ToolDefinition } from '../../src/types/messages.js';
import type { ToolApprover, ToolRegistry } from '../../src/types/tool.js';
import { requestText } from '../support/harness.js';

/** A registry over named tools that records what really ran, and its lifecycle calls. */
function recordingTools(tools: Record<string, ToolAnnotations | undefined>) {
  const executed: { name: string; phase: string; agentId: string }[] = [];
  const lifecycle: string[] = [];
  const definitions: ToolDefinition[] = Object.entries(tools).map(([name, annotations]) => ({
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    ...(annotations ? { annotations } : {}),
  }));
  const registry: ToolRegistry = {
    list: () => definitions,
    execute: async (call, context) => {
      executed.push({ name: call.name, phase: context.phase, agentId: context.agentId });
      return { content: `${call.name} done` };
    },
    start: async (context) => {
      lifecycle.push(`start:${context.agentId}`);
      context.emit({
        type: 'mcp.server.ready',
        agentId: context.agentId,
        server: 'fake',
        tools: definitions.map((d) => d.name),
        durationMs: 1,
      });
    },
    close: async () => {
      lifecycle.push('close');
    },
  };
  return { registry, executed, lifecycle };
}

const call = (name: string, args: unknown = {}): ScriptStep => ({ toolCalls: [{ name, arguments: args }] });
const answer = (content: string): ScriptStep => call('new_answer', { content });
const vote = (id: string): ScriptStep => call('vote', { agent_id: id, reason: 'best' });

async function run(
  scripts: Record<string, ScriptStep[]>,
  tools: ToolRegistry,
  settings: Partial<CoordinationSettings>,
  approver?: ToolApprover,
) {
  const backends = Object.fromEntries(
    Object.entries(scripts).map(([id, steps]) => [id, new ScriptedBackend(steps, { model: `m-${id}` })]),
  );
  const orchestrator = new Orchestrator({
    agents: Object.entries(backends).map(([id, backend]) => ({ id, backend, tools })),
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000, ...settings },
    ...(approver ? { approveToolCall: approver } : {}),
  });
  const recorder = new EventRecorder();
  for await (const event of orchestrator.run('Tidy the report folder.')) recorder.events.push(event);
  return { recorder, backends };
}

const ofType = <T extends RunEvent['type']>(events: readonly RunEvent[], type: T) =>
  events.filter((e): e is RunEventOf<T> => e.type === type);

describe('planning mode', () => {
  const annotated = { read_report: { readOnly: true }, delete_report: { destructive: true } };

  it('records world-changing calls during coordination and runs them only in the final presentation', async () => {
    const { registry, executed } = recordingTools(annotated);
    const { recorder, backends } = await run(
      {
        a: [
          call('read_report'),
          call('delete_report', { name: 'old.txt' }),
          answer('Plan: delete old.txt'),
          vote('agent1'),
          call('delete_report', { name: 'old.txt' }),
          { text: 'Deleted old.txt.' },
        ],
        b: [vote('agent1')],
      },
      registry,
      { planningMode: true },
    );
    expect(recorder.finished?.status).toBe('completed');
    expect(executed).toEqual([
      { name: 'read_report', phase: 'coordination', agentId: 'a' },
      { name: 'delete_report', phase: 'presentation', agentId: 'a' },
    ]);
    const deferred = ofType(recorder.events, 'tool.call.finished').filter((e) => e.deferred);
    expect(deferred).toHaveLength(1);
    expect(deferred[0]).toMatchObject({ toolName: 'delete_report', phase: 'coordination', isError: false });
    expect(deferred[0]?.result).toMatch(/recorded as part of your plan/);
    // Every decision came from the tools' own hints: no analysis call was made.
    const classified = ofType(recorder.events, 'planning.tools.classified')[0];
    expect(classified?.analysisAgentId).toBeNull();
    expect(classified?.decisions).toContainEqual({
      agentId: 'b',
      toolName: 'delete_report',
      allowed: false,
      source: 'annotation',
    });
    const first = backends.a?.requests[0];
    expect(requestText(first)).toMatch(/PLANNING MODE[\s\S]*delete_report/);
    const presentation = backends.a?.requests.find((r) => !r.tools.some((t) => t.name === 'new_answer'));
    expect(requestText(presentation)).toMatch(/carry out the plan/);
  });

  it('asks the first agent to classify tools without hints, and the config list wins over everything', async () => {
    const { registry, executed } = recordingTools({
      fetch_page: undefined,
      post_comment: undefined,
      purge_cache: { destructive: true },
    });
    const { recorder, backends } = await run(
      {
        a: [
          (request) => {
            expect(request.tools.map((t) => t.name)).toEqual(['classify_tools']);
            expect(requestText(request)).toMatch(/fetch_page[\s\S]*post_comment/);
            return call('classify_tools', { read_only_tools: ['fetch_page'] });
          },
          call('fetch_page'),
          call('post_comment'),
          call('purge_cache'),
          answer('done'),
          vote('agent1'),
          { text: 'final' },
        ],
        b: [vote('agent1')],
      },
      registry,
      { planningMode: true, planningModeAllowedTools: ['purge_*'] },
    );
    const classified = ofType(recorder.events, 'planning.tools.classified')[0];
    expect(classified?.analysisAgentId).toBe('a');
    const forA = classified?.decisions.filter((d) => d.agentId === 'a');
    expect(forA).toEqual([
      { agentId: 'a', toolName: 'fetch_page', allowed: true, source: 'analysis' },
      { agentId: 'a', toolName: 'post_comment', allowed: false, source: 'analysis' },
      { agentId: 'a', toolName: 'purge_cache', allowed: true, source: 'config' },
    ]);
    expect(executed.map((e) => e.name)).toEqual(['fetch_page', 'purge_cache']);
    expect(backends.a?.requests[0]?.toolChoice).toBe('required');
  });

  it('defers every unclassified tool when the analysis fails, and the run goes on', async () => {
    const { registry, executed } = recordingTools({ fetch_page: undefined });
    const { recorder } = await run(
      {
        a: [
          { text: 'I would rather not.' },
          call('fetch_page'),
          answer('done'),
          vote('agent1'),
          { text: 'x' },
        ],
        b: [vote('agent1')],
      },
      registry,
      { planningMode: true },
    );
    const classified = ofType(recorder.events, 'planning.tools.classified')[0];
    expect(classified?.error?.code).toBe('planning_analysis_failed');
    expect(classified?.decisions.every((d) => !d.allowed && d.source === 'default')).toBe(true);
    expect(executed).toEqual([]);
    expect(recorder.finished?.status).toBe('completed');
  });

  it('lets tools confined to the agent workspace run while planning', async () => {
    const { registry, executed } = recordingTools({ write_file: { destructive: true, confined: true } });
    const { recorder } = await run(
      { a: [call('write_file'), answer('done'), vote('agent1'), { text: 'x' }], b: [vote('agent1')] },
      registry,
      { planningMode: true },
    );
    expect(executed).toEqual([{ name: 'write_file', phase: 'coordination', agentId: 'a' }]);
    const classified = ofType(recorder.events, 'planning.tools.classified')[0];
    expect(classified?.decisions[0]).toMatchObject({ allowed: true, source: 'annotation' });
  });

  it('is off by default: tools run during coordination and nothing is classified', async () => {
    const { registry, executed } = recordingTools(annotated);
    const { recorder } = await run(
      { a: [call('delete_report'), answer('done'), vote('agent1'), { text: 'x' }], b: [vote('agent1')] },
      registry,
      {},
    );
    expect(executed).toEqual([{ name: 'delete_report', phase: 'coordination', agentId: 'a' }]);
    expect(ofType(recorder.events, 'planning.tools.classified')).toEqual([]);
  });
});

describe('tool approval', () => {
  it('holds each call for the approver and returns a denial to the model as a tool error', async () => {
    const { registry, executed } = recordingTools({ read_report: undefined, delete_report: undefined });
    const asked: string[] = [];
    const approver: ToolApprover = async (request) => {
      asked.push(`${request.agentId}:${request.toolName}`);
      return request.toolName === 'delete_report'
        ? { approved: false, reason: 'not today' }
        : { approved: true };
    };
    const { recorder, backends } = await run(
      {
        a: [call('read_report'), call('delete_report'), answer('kept'), vote('agent1'), { text: 'x' }],
        b: [vote('agent1')],
      },
      registry,
      {},
      approver,
    );
    expect(asked).toEqual(['a:read_report', 'a:delete_report']);
    expect(executed.map((e) => e.name)).toEqual(['read_report']);
    const resolved = ofType(recorder.events, 'tool.approval.resolved');
    expect(resolved.map((e) => [e.toolName, e.approved, e.reason])).toEqual([
      ['read_report', true, undefined],
      ['delete_report', false, 'not today'],
    ]);
    // Each call is held: requested comes before its resolution, which comes before the call finishes.
    for (const { callId, seq } of resolved) {
      const requested = recorder.events.find(
        (e) => e.type === 'tool.approval.requested' && e.callId === callId,
      );
      const finished = recorder.events.find((e) => e.type === 'tool.call.finished' && e.callId === callId);
      expect(requested?.seq).toBeLessThan(seq);
      expect(finished?.seq).toBeGreaterThan(seq);
    }
    const denial = backends.a?.requests[2]?.messages.find((m) => m.role === 'tool' && m.isError);
    expect(denial?.content).toMatch(/not approved: not today/);
  });

  it('cancelling the run while a call waits for approval ends it as cancelled', async () => {
    const { registry, lifecycle } = recordingTools({ read_report: undefined });
    const controller = new AbortController();
    const approver: ToolApprover = (_request, signal) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const backends = {
      a: new ScriptedBackend([call('read_report')]),
      b: new ScriptedBackend([{ hang: true }]),
    };
    const orchestrator = new Orchestrator({
      agents: Object.entries(backends).map(([id, backend]) => ({ id, backend, tools: registry })),
      approveToolCall: approver,
    });
    const events: RunEvent[] = [];
    for await (const event of orchestrator.run('q', { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'tool.approval.requested') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
    expect(lifecycle.at(-1)).toBe('close');
  });
});

describe('tool lifecycle', () => {
  it('starts every registry before the first model call, forwards its events, and closes it at the end', async () => {
    const { registry, lifecycle } = recordingTools({});
    const { recorder } = await run(
      { a: [answer('x'), vote('agent1'), { text: 'x' }], b: [vote('agent1')] },
      registry,
      {},
    );
    // One shared registry: started once, closed once.
    expect(lifecycle).toEqual(['start:a', 'close']);
    const types = recorder.events.map((e) => e.type);
    expect(types.indexOf('mcp.server.ready')).toBeLessThan(types.indexOf('agent.step.started'));
    expect(types.at(-1)).toBe('run.finished');
  });

  it('closes the tools when every agent fails', async () => {
    const { registry, lifecycle } = recordingTools({});
    const failing: ScriptStep[] = [{ error: new Error('boom') }, { error: new Error('boom') }];
    const { recorder } = await run({ a: failing, b: [...failing] }, registry, {});
    expect(recorder.finished?.status).toBe('failed');
    expect(lifecycle.at(-1)).toBe('close');
  });
});
